package dev.outbox.kafka.internal;

import dev.outbox.kafka.KafkaPublisherOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The producer configuration the adapter builds from its options: the fixed delivery guarantees,
 * timeouts short enough for the outbox's publish timeout, and the user's pass-through properties.
 */
public final class ProducerSettings {

  /**
   * Adapter defaults a user may override through producer properties. One request in flight per
   * connection: with more, a first write of a new producer id to a partition that fails retriably
   * (NOT_LEADER right after a leader change or topic creation, a dropped connection) can be
   * overtaken by the next in-flight batch, because a broker accepts any first sequence number from
   * a producer it has no state for; seen on a real broker in this module's tests. A linger, so that
   * the sender does not take a call's first record alone: each call asks for a flush once all its
   * records are appended ({@link Flusher}), and they go in one request without waiting for it.
   */
  static final Map<String, String> OVERRIDABLE_DEFAULTS =
      Map.of(
          ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1",
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000",
          ProducerConfig.LINGER_MS_CONFIG, "5",
          ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100",
          ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000",
          ProducerConfig.METADATA_MAX_AGE_CONFIG, "60000");

  /** Properties the adapter sets from an option of its own. */
  private static final Map<String, String> FROM_OPTIONS =
      Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "bootstrapServers",
          ProducerConfig.CLIENT_ID_CONFIG, "clientId",
          ProducerConfig.MAX_BLOCK_MS_CONFIG, "metadataTimeout");

  /** Properties that would break the delivery guarantees or the record format. */
  private static final List<String> OWNED =
      List.of(
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG);

  private static final List<String> SECRET_MARKERS =
      List.of("password", "secret", "token", "key", "credential", "jaas");

  private static final String MASK = "****";

  private static final Pattern JAAS_USERNAME = Pattern.compile("\\busername\\s*=\\s*\"([^\"]*)\"");

  private ProducerSettings() {}

  /**
   * Checks one pass-through property.
   *
   * @param name the property name
   * @param value its value
   * @throws IllegalArgumentException naming the property and, for secrets, not the value
   */
  public static void checkPassThrough(String name, String value) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "producer property name must not be blank, but was " + name);
    }
    String shown = isSecret(name) ? MASK : value;
    if (value == null) {
      throw new IllegalArgumentException("producer property " + name + " must have a value");
    }
    if (FROM_OPTIONS.containsKey(name)) {
      throw new IllegalArgumentException(
          "producer property " + name + " is set by the option " + FROM_OPTIONS.get(name));
    }
    if (OWNED.contains(name)) {
      throw new IllegalArgumentException(
          "producer property " + name + " is fixed by the Kafka adapter, but was " + shown);
    }
    checkGuarantee(name, value.trim().toLowerCase(Locale.ROOT));
  }

  private static void checkGuarantee(String name, String value) {
    if (name.equals(ProducerConfig.ACKS_CONFIG) && !value.equals("all") && !value.equals("-1")) {
      throw new IllegalArgumentException("producer property acks must be all, but was " + value);
    }
    if (name.equals(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG) && !value.equals("true")) {
      throw new IllegalArgumentException(
          "producer property enable.idempotence must be true, but was " + value);
    }
    if (name.equals(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)) {
      int inFlight = parseInt(name, value);
      if (inFlight < 1 || inFlight > 5) {
        throw new IllegalArgumentException(
            "producer property "
                + name
                + " must be between 1 and 5 to keep order, but was "
                + value);
      }
    }
  }

  /**
   * Checks what the Kafka client only checks when it creates the producer, at the first publish:
   * that {@code delivery.timeout.ms} covers {@code linger.ms} plus {@code request.timeout.ms}, with
   * the adapter's defaults for those not set.
   *
   * @param properties the pass-through properties
   * @throws IllegalArgumentException naming the three values
   */
  public static void checkTimeouts(Map<String, String> properties) {
    long linger = effective(properties, ProducerConfig.LINGER_MS_CONFIG);
    long request = effective(properties, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
    long delivery = effective(properties, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG);
    if (delivery < linger + request) {
      throw new IllegalArgumentException(
          "producer property delivery.timeout.ms ("
              + delivery
              + ") must be at least linger.ms ("
              + linger
              + ") + request.timeout.ms ("
              + request
              + ")");
    }
  }

  /**
   * The producer's own deadline for a record ({@code delivery.timeout.ms}), with the adapter's
   * default when not set.
   *
   * @param properties the pass-through properties
   * @return the deadline
   */
  public static Duration deliveryTimeout(Map<String, String> properties) {
    return Duration.ofMillis(effective(properties, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
  }

  private static long effective(Map<String, String> properties, String name) {
    String value = properties.getOrDefault(name, OVERRIDABLE_DEFAULTS.get(name)).trim();
    return parseInt(name, value);
  }

  private static int parseInt(String name, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "producer property " + name + " must be a number, but was " + value, e);
    }
  }

  /**
   * Whether a property's value must never be shown.
   *
   * @param name a property name
   * @return {@code true} for passwords, secrets, tokens, keys, credentials and JAAS configs
   */
  public static boolean isSecret(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return SECRET_MARKERS.stream().anyMatch(lower::contains);
  }

  /**
   * The properties with secret values replaced by {@code ****}.
   *
   * @param properties the pass-through properties
   * @return a printable copy in the same order
   */
  public static Map<String, String> masked(Map<String, String> properties) {
    Map<String, String> shown = new LinkedHashMap<>();
    properties.forEach((name, value) -> shown.put(name, isSecret(name) ? MASK : value));
    return shown;
  }

  /**
   * The SASL user name of a producer configuration, to name it when the brokers refuse the
   * credentials: the {@code username} of its {@code sasl.jaas.config} (PLAIN, SCRAM). The password
   * is never read.
   *
   * @param config the complete producer configuration
   * @return the user name, or {@code null} when there is none
   */
  public static String saslUser(Map<String, ?> config) {
    Object jaas = config.get(SaslConfigs.SASL_JAAS_CONFIG);
    if (jaas == null) {
      return null;
    }
    String text = jaas instanceof Password password ? password.value() : jaas.toString();
    Matcher user = JAAS_USERNAME.matcher(text);
    return user.find() ? user.group(1) : null;
  }

  /**
   * The complete producer configuration.
   *
   * @param options the adapter's options
   * @return a new map for the {@code KafkaProducer} constructor
   */
  public static Map<String, Object> producerConfig(KafkaPublisherOptions options) {
    Map<String, Object> config = new HashMap<>(OVERRIDABLE_DEFAULTS);
    config.putAll(options.producerProperties());
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    config.put(ProducerConfig.CLIENT_ID_CONFIG, options.clientId());
    config.put(
        ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(options.metadataTimeout().toMillis()));
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return config;
  }
}
