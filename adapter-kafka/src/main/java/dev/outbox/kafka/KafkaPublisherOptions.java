package dev.outbox.kafka;

import dev.outbox.OutboxMessage;
import dev.outbox.kafka.internal.ProducerSettings;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * How {@link KafkaEventPublisher} connects and where it sends each message. An immutable value:
 * {@link #builder()}, {@link #defaults()}, {@link #toBuilder()}; every setter checks its value and
 * names the field and the bad value.
 *
 * <pre>{@code
 * KafkaPublisherOptions options = KafkaPublisherOptions.builder()
 *     .bootstrapServers("broker1:9092,broker2:9092")
 *     .topicPrefix("orders.")                                  // topic = prefix + aggregate type
 *     .producerProperty("security.protocol", "SASL_SSL")
 *     .producerProperty("sasl.jaas.config", secret)            // never shown by toString()
 *     .build();
 * // or from the environment: KafkaPublisherOptions.fromMap(System.getenv(), "OUTBOX_KAFKA")
 * }</pre>
 *
 * <p>The producer is always idempotent with {@code acks=all}; those and the serializers cannot be
 * changed. Values of producer properties whose name suggests a secret (password, secret, token,
 * key, credentials, {@code sasl.jaas.config}) are masked in {@link #toString()}.
 */
public final class KafkaPublisherOptions {

  /** Default of {@link #bootstrapServers()}. */
  public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";

  /** Default of {@link #topicPrefix()}: none. */
  public static final String DEFAULT_TOPIC_PREFIX = "";

  /** Default of {@link #clientId()}. */
  public static final String DEFAULT_CLIENT_ID = "outbox-publisher";

  /** Default of {@link #metadataTimeout()}. */
  public static final Duration DEFAULT_METADATA_TIMEOUT = Duration.ofSeconds(5);

  /** Default of {@link #closeTimeout()}. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** Default of {@link #topicRouter()}: the aggregate type. */
  public static final Function<OutboxMessage, String> DEFAULT_TOPIC_ROUTER =
      OutboxMessage::aggregateType;

  private static final KafkaPublisherOptions DEFAULTS = new Builder().build();

  private static final OptionsBinder<Builder> BINDER =
      OptionsBinder.<Builder>of("Kafka publisher")
          .string("bootstrap-servers", Builder::bootstrapServers)
          .string("topic-prefix", Builder::topicPrefix)
          .string("client-id", Builder::clientId)
          .duration("metadata-timeout", Builder::metadataTimeout)
          .duration("close-timeout", Builder::closeTimeout)
          .section("producer", Builder::producerProperties);

  private final String bootstrapServers;
  private final String topicPrefix;
  private final Function<OutboxMessage, String> topicRouter;
  private final String clientId;
  private final Duration metadataTimeout;
  private final Duration closeTimeout;
  private final Map<String, String> producerProperties;

  private KafkaPublisherOptions(Builder builder) {
    this.bootstrapServers = builder.bootstrapServers;
    this.topicPrefix = builder.topicPrefix;
    this.topicRouter = builder.topicRouter;
    this.clientId = builder.clientId;
    this.metadataTimeout = builder.metadataTimeout;
    this.closeTimeout = builder.closeTimeout;
    this.producerProperties =
        Collections.unmodifiableMap(new TreeMap<>(builder.producerProperties));
  }

  /**
   * A builder holding the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The options with every default.
   *
   * @return the default options
   */
  public static KafkaPublisherOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Reads options from properties with the outbox's one key grammar ({@link OptionsBinder}): under
   * the prefix {@code outbox.kafka}, the keys {@code outbox.kafka.bootstrap-servers}, {@code
   * topic-prefix}, {@code client-id}, {@code metadata-timeout} and {@code close-timeout} (such as
   * {@code 500ms}, {@code 5s} or {@code PT5S}), and {@code outbox.kafka.producer.<any producer
   * property>}; each also in environment form ({@code OUTBOX_KAFKA_BOOTSTRAP_SERVERS}, {@code
   * OUTBOX_KAFKA_PRODUCER_LINGER_MS}). Keys outside the prefix are ignored; an unknown key under it
   * is an error that lists the known ones.
   *
   * @param properties the properties, for example {@code System.getProperties()}
   * @param prefix the common prefix, for example {@code outbox.kafka}
   * @return the options, defaults where a key is absent
   * @throws IllegalArgumentException naming the key of an unknown option or a bad value
   */
  public static KafkaPublisherOptions fromProperties(Properties properties, String prefix) {
    return BINDER.bind(properties, prefix, builder()).build();
  }

  /**
   * The same from a map, for example {@code fromMap(System.getenv(), "OUTBOX_KAFKA")}.
   *
   * @param values the values by key
   * @param prefix the common prefix, for example {@code OUTBOX_KAFKA}
   * @return the options, defaults where a key is absent
   * @throws IllegalArgumentException naming the key of an unknown option or a bad value
   */
  public static KafkaPublisherOptions fromMap(Map<String, String> values, String prefix) {
    return BINDER.bind(values, prefix, builder()).build();
  }

  /**
   * The keys {@link #fromMap} reads under a prefix, in dotted form; the producer section as {@code
   * <prefix>.producer.*}.
   *
   * @param prefix the prefix, for example {@code outbox.kafka}
   * @return the keys
   */
  public static List<String> keys(String prefix) {
    return BINDER.keys(prefix);
  }

  /**
   * A builder holding these options, to derive changed ones.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * The Kafka brokers to bootstrap from, as {@code host:port,host:port}.
   *
   * @return default {@value #DEFAULT_BOOTSTRAP_SERVERS}
   */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * Prepended to the topic the {@link #topicRouter()} returns.
   *
   * @return default empty
   */
  public String topicPrefix() {
    return topicPrefix;
  }

  /**
   * The function from message to topic (before the prefix).
   *
   * @return default {@link #DEFAULT_TOPIC_ROUTER}, the aggregate type
   */
  public Function<OutboxMessage, String> topicRouter() {
    return topicRouter;
  }

  /**
   * The topic of a message: {@link #topicPrefix()} followed by what {@link #topicRouter()} returns.
   *
   * @param message the message
   * @return the topic
   * @throws IllegalArgumentException when the router returns null or blank
   */
  public String topicFor(OutboxMessage message) {
    String topic = topicRouter.apply(message);
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException(
          "topicRouter returned " + (topic == null ? "null" : "a blank topic") + " for " + message);
    }
    return topicPrefix + topic;
  }

  /**
   * The producer's {@code client.id}.
   *
   * @return default {@value #DEFAULT_CLIENT_ID}
   */
  public String clientId() {
    return clientId;
  }

  /**
   * How long a send may wait for a topic's metadata (the producer's {@code max.block.ms}). A topic
   * that does not exist, or a broker that cannot be reached, fails a message after this long; keep
   * it well below the outbox's publish timeout.
   *
   * @return default 5 s
   */
  public Duration metadataTimeout() {
    return metadataTimeout;
  }

  /**
   * How long {@link KafkaEventPublisher#close()} waits for records still in flight.
   *
   * @return default 5 s
   */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  /**
   * Raw producer properties passed through to the Kafka client (security, compression, linger,
   * ...). They override the adapter's defaults: {@code max.in.flight.requests.per.connection=1}
   * (raising it, up to 5, sends faster but a retried first write of a new producer to a partition
   * can then be overtaken), {@code request.timeout.ms=10000}, {@code delivery.timeout.ms=30000},
   * {@code linger.ms=5}: each publish call has its records flushed as soon as they are appended, so
   * the linger only keeps the producer from sending a call's first record alone, one round trip
   * ahead of the rest.
   *
   * @return default empty; an unmodifiable map sorted by name
   */
  public Map<String, String> producerProperties() {
    return producerProperties;
  }

  @Override
  public String toString() {
    return "KafkaPublisherOptions[bootstrapServers="
        + bootstrapServers
        + ", topicPrefix="
        + topicPrefix
        + ", topicRouter="
        + (topicRouter == DEFAULT_TOPIC_ROUTER ? "aggregateType" : "custom")
        + ", clientId="
        + clientId
        + ", metadataTimeout="
        + metadataTimeout
        + ", closeTimeout="
        + closeTimeout
        + ", producerProperties="
        + ProducerSettings.masked(producerProperties)
        + ']';
  }

  /** Builds {@link KafkaPublisherOptions}; each setter checks its value at once. */
  public static final class Builder {

    private String bootstrapServers = DEFAULT_BOOTSTRAP_SERVERS;
    private String topicPrefix = DEFAULT_TOPIC_PREFIX;
    private Function<OutboxMessage, String> topicRouter = DEFAULT_TOPIC_ROUTER;
    private String clientId = DEFAULT_CLIENT_ID;
    private Duration metadataTimeout = DEFAULT_METADATA_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private final Map<String, String> producerProperties = new TreeMap<>();

    private Builder() {}

    private Builder(KafkaPublisherOptions options) {
      this.bootstrapServers = options.bootstrapServers;
      this.topicPrefix = options.topicPrefix;
      this.topicRouter = options.topicRouter;
      this.clientId = options.clientId;
      this.metadataTimeout = options.metadataTimeout;
      this.closeTimeout = options.closeTimeout;
      this.producerProperties.putAll(options.producerProperties);
    }

    /**
     * Sets {@link KafkaPublisherOptions#bootstrapServers()}.
     *
     * @param bootstrapServers {@code host:port} pairs separated by commas
     * @return this builder
     */
    public Builder bootstrapServers(String bootstrapServers) {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new IllegalArgumentException(
            "bootstrapServers must not be blank, but was " + quote(bootstrapServers));
      }
      this.bootstrapServers = bootstrapServers.trim();
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#topicPrefix()}.
     *
     * @param topicPrefix characters allowed in topic names ({@code [a-zA-Z0-9._-]}), may be empty
     * @return this builder
     */
    public Builder topicPrefix(String topicPrefix) {
      if (topicPrefix == null || !topicPrefix.matches("[a-zA-Z0-9._-]{0,200}")) {
        throw new IllegalArgumentException(
            "topicPrefix must match [a-zA-Z0-9._-]{0,200}, but was " + quote(topicPrefix));
      }
      this.topicPrefix = topicPrefix;
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#topicRouter()}.
     *
     * @param topicRouter returns the topic of a message (the prefix is added to it)
     * @return this builder
     */
    public Builder topicRouter(Function<OutboxMessage, String> topicRouter) {
      this.topicRouter = Objects.requireNonNull(topicRouter, "topicRouter must not be null");
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#clientId()}.
     *
     * @param clientId the producer's client id
     * @return this builder
     */
    public Builder clientId(String clientId) {
      if (clientId == null || clientId.isBlank()) {
        throw new IllegalArgumentException(
            "clientId must not be blank, but was " + quote(clientId));
      }
      this.clientId = clientId;
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#metadataTimeout()}.
     *
     * @param metadataTimeout between 1 ms and 10 minutes
     * @return this builder
     */
    public Builder metadataTimeout(Duration metadataTimeout) {
      this.metadataTimeout = checkDuration("metadataTimeout", metadataTimeout);
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#closeTimeout()}.
     *
     * @param closeTimeout between 1 ms and 10 minutes
     * @return this builder
     */
    public Builder closeTimeout(Duration closeTimeout) {
      this.closeTimeout = checkDuration("closeTimeout", closeTimeout);
      return this;
    }

    /**
     * Adds one raw producer property, replacing an earlier value of the same name.
     *
     * @param name a Kafka producer property, for example {@code compression.type}
     * @param value its value
     * @return this builder
     * @throws IllegalArgumentException for properties the adapter owns (acks, idempotence,
     *     serializers, transactions) or sets from its own options (bootstrap servers, client id,
     *     max.block.ms), naming the option to use instead
     */
    public Builder producerProperty(String name, String value) {
      ProducerSettings.checkPassThrough(name, value);
      producerProperties.put(name, value);
      return this;
    }

    /**
     * Replaces all raw producer properties.
     *
     * @param properties the properties, each checked as by {@link #producerProperty}
     * @return this builder
     */
    public Builder producerProperties(Map<String, String> properties) {
      Objects.requireNonNull(properties, "producerProperties must not be null");
      properties.forEach(ProducerSettings::checkPassThrough);
      producerProperties.clear();
      producerProperties.putAll(properties);
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the immutable options
     */
    public KafkaPublisherOptions build() {
      ProducerSettings.checkTimeouts(producerProperties);
      return new KafkaPublisherOptions(this);
    }

    private static Duration checkDuration(String field, Duration value) {
      if (value == null
          || value.isNegative()
          || value.toMillis() < 1
          || value.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            field + " must be between 1 ms and 10 minutes, but was " + value);
      }
      return value;
    }

    private static String quote(String value) {
      return value == null ? "null" : '"' + value + '"';
    }
  }
}
