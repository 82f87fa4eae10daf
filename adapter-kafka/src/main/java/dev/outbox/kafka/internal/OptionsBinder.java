package dev.outbox.kafka.internal;

import dev.outbox.kafka.KafkaPublisherOptions;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** Reads {@link KafkaPublisherOptions} from prefixed string keys. */
public final class OptionsBinder {

  /** Key of {@link KafkaPublisherOptions#bootstrapServers()}. */
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

  /** Key of {@link KafkaPublisherOptions#topicPrefix()}. */
  public static final String TOPIC_PREFIX = "topic.prefix";

  /** Key of {@link KafkaPublisherOptions#clientId()}. */
  public static final String CLIENT_ID = "client.id";

  /** Key of {@link KafkaPublisherOptions#metadataTimeout()}. */
  public static final String METADATA_TIMEOUT = "metadata.timeout";

  /** Key of {@link KafkaPublisherOptions#closeTimeout()}. */
  public static final String CLOSE_TIMEOUT = "close.timeout";

  /** Prefix of the keys of {@link KafkaPublisherOptions#producerProperties()}. */
  public static final String PRODUCER = "producer.";

  private OptionsBinder() {}

  /**
   * Applies every key that starts with {@code prefix} to the builder.
   *
   * @param values the values by key
   * @param prefix the common prefix, may be empty
   * @param builder the builder to set
   * @throws IllegalArgumentException naming an unknown key or a key with a bad value
   */
  public static void bind(
      Map<String, String> values, String prefix, KafkaPublisherOptions.Builder builder) {
    Objects.requireNonNull(values, "values must not be null");
    String common = prefix == null ? "" : prefix;
    Map<String, String> producer = new TreeMap<>();
    new TreeMap<>(values)
        .forEach(
            (key, value) -> {
              if (key.startsWith(common) && value != null) {
                String name = key.substring(common.length());
                try {
                  if (name.startsWith(PRODUCER)) {
                    producer.put(name.substring(PRODUCER.length()), value);
                  } else {
                    set(builder, name, value.trim(), key);
                  }
                } catch (IllegalArgumentException e) {
                  throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
                }
              }
            });
    if (!producer.isEmpty()) {
      builder.producerProperties(producer);
    }
  }

  private static void set(
      KafkaPublisherOptions.Builder builder, String name, String value, String key) {
    switch (name) {
      case BOOTSTRAP_SERVERS -> builder.bootstrapServers(value);
      case TOPIC_PREFIX -> builder.topicPrefix(value);
      case CLIENT_ID -> builder.clientId(value);
      case METADATA_TIMEOUT -> builder.metadataTimeout(duration(value));
      case CLOSE_TIMEOUT -> builder.closeTimeout(duration(value));
      default ->
          throw new IllegalArgumentException(
              "unknown Kafka publisher option "
                  + key
                  + "; known keys after the prefix are "
                  + String.join(
                      ", ",
                      BOOTSTRAP_SERVERS,
                      TOPIC_PREFIX,
                      CLIENT_ID,
                      METADATA_TIMEOUT,
                      CLOSE_TIMEOUT,
                      PRODUCER + "<producer property>"));
    }
  }

  /** ISO-8601 ({@code PT5S}) or a number of milliseconds. */
  static Duration duration(String value) {
    try {
      return value.matches("\\d+")
          ? Duration.ofMillis(Long.parseLong(value))
          : Duration.parse(value);
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "expected an ISO-8601 duration such as PT5S or milliseconds, but was " + value, e);
    }
  }
}
