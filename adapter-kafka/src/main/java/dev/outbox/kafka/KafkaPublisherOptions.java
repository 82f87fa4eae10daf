package dev.outbox.kafka;

import dev.outbox.OutboxMessage;
import dev.outbox.kafka.internal.ProducerSettings;
import dev.outbox.kafka.internal.RecordMapper;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;

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
 *
 * <p>The options come in three groups, in this order below and in the builder: the client
 * (bootstrap servers, client id, timeouts), the topics (prefix and router), and the raw producer
 * properties.
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

  /**
   * The defaults, built on first use rather than with this class, so that the settings records may
   * read the constants above whichever of them is loaded first.
   */
  private static final class Defaults {
    static final KafkaPublisherOptions VALUE = new Builder().build();
  }

  private static final OptionsBinder<Builder> BINDER =
      OptionsBinder.<Builder>of("Kafka publisher")
          .string("bootstrap-servers", Builder::bootstrapServers)
          .string("topic-prefix", Builder::topicPrefix)
          .string("client-id", Builder::clientId)
          .duration("metadata-timeout", Builder::metadataTimeout)
          .duration("close-timeout", Builder::closeTimeout)
          .section("producer", Builder::producerProperties);

  private final ClientSettings client;
  private final TopicSettings topics;
  private final ProducerPropertySettings producer;

  private KafkaPublisherOptions(Builder builder) {
    this.client = builder.client;
    this.topics = builder.topics;
    this.producer = builder.producer;
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
    return Defaults.VALUE;
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

  // Client: bootstrap servers, client id, timeouts

  /**
   * The Kafka brokers to bootstrap from, as {@code host:port,host:port}.
   *
   * @return default {@value #DEFAULT_BOOTSTRAP_SERVERS}
   */
  public String bootstrapServers() {
    return client.bootstrapServers();
  }

  /**
   * The producer's {@code client.id}.
   *
   * @return default {@value #DEFAULT_CLIENT_ID}
   */
  public String clientId() {
    return client.clientId();
  }

  /**
   * How long a send may wait for a topic's metadata (the producer's {@code max.block.ms}). A topic
   * that does not exist, or a broker that cannot be reached, fails a message after this long; keep
   * it well below the outbox's publish timeout.
   *
   * @return default 5 s
   */
  public Duration metadataTimeout() {
    return client.metadataTimeout();
  }

  /**
   * How long {@link KafkaEventPublisher#close()} waits for records still in flight.
   *
   * @return default 5 s
   */
  public Duration closeTimeout() {
    return client.closeTimeout();
  }

  // Topics: prefix and router

  /**
   * Prepended to the topic the {@link #topicRouter()} returns.
   *
   * @return default empty
   */
  public String topicPrefix() {
    return topics.topicPrefix();
  }

  /**
   * The function from message to topic (before the prefix).
   *
   * @return default {@link #DEFAULT_TOPIC_ROUTER}, the aggregate type
   */
  public Function<OutboxMessage, String> topicRouter() {
    return topics.topicRouter();
  }

  /**
   * The topic of a message: {@link #topicPrefix()} followed by what {@link #topicRouter()} returns.
   *
   * @param message the message
   * @return the topic
   * @throws IllegalArgumentException when the router returns null or blank
   */
  public String topicFor(OutboxMessage message) {
    return topics.topicFor(message);
  }

  // Producer properties

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
    return producer.properties();
  }

  // What the publisher makes of these options

  /**
   * The complete configuration of the producer a {@link KafkaEventPublisher} creates with these
   * options: the adapter's defaults, overridden by {@link #producerProperties()}, then the client
   * options and what cannot be changed ({@code acks=all}, idempotence, the serializers). For a
   * producer of one's own that sends as the adapter does, or to see what the adapter runs with.
   * Secrets are in it as given: do not log it.
   *
   * @return a new mutable map, for the {@code KafkaProducer} constructor
   */
  public Map<String, Object> producerConfig() {
    return ProducerSettings.producerConfig(this);
  }

  /**
   * The record a {@link KafkaEventPublisher} with these options sends for a message: on the topic
   * {@link #topicFor} gives, keyed by the aggregate id, the payload's UTF-8 bytes as value, {@link
   * dev.outbox.spi.WireHeaders} as UTF-8 headers, and the timestamp left to the producer.
   *
   * @param message the message
   * @return a new record, for a producer configured with {@link #producerConfig()}
   * @throws IllegalArgumentException when the topic router returns null or blank
   */
  public ProducerRecord<String, byte[]> recordFor(OutboxMessage message) {
    return RecordMapper.toRecord(message, topicFor(message));
  }

  @Override
  public String toString() {
    return "KafkaPublisherOptions[bootstrapServers="
        + client.bootstrapServers()
        + ", topicPrefix="
        + topics.topicPrefix()
        + ", topicRouter="
        + (topics.topicRouter() == DEFAULT_TOPIC_ROUTER ? "aggregateType" : "custom")
        + ", clientId="
        + client.clientId()
        + ", metadataTimeout="
        + client.metadataTimeout()
        + ", closeTimeout="
        + client.closeTimeout()
        + ", producerProperties="
        + ProducerSettings.masked(producer.properties())
        + ']';
  }

  /** Builds {@link KafkaPublisherOptions}; each setter checks its value at once. */
  public static final class Builder {

    private ClientSettings client = ClientSettings.DEFAULTS;
    private TopicSettings topics = TopicSettings.DEFAULTS;
    private ProducerPropertySettings producer = ProducerPropertySettings.DEFAULTS;

    private Builder() {}

    private Builder(KafkaPublisherOptions options) {
      this.client = options.client;
      this.topics = options.topics;
      this.producer = options.producer;
    }

    // Client: bootstrap servers, client id, timeouts

    /**
     * Sets {@link KafkaPublisherOptions#bootstrapServers()}.
     *
     * @param bootstrapServers {@code host:port} pairs separated by commas
     * @return this builder
     */
    public Builder bootstrapServers(String bootstrapServers) {
      client = client.withBootstrapServers(bootstrapServers);
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#clientId()}.
     *
     * @param clientId the producer's client id
     * @return this builder
     */
    public Builder clientId(String clientId) {
      client = client.withClientId(clientId);
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#metadataTimeout()}.
     *
     * @param metadataTimeout between 1 ms and 10 minutes
     * @return this builder
     */
    public Builder metadataTimeout(Duration metadataTimeout) {
      client = client.withMetadataTimeout(metadataTimeout);
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#closeTimeout()}.
     *
     * @param closeTimeout between 1 ms and 10 minutes
     * @return this builder
     */
    public Builder closeTimeout(Duration closeTimeout) {
      client = client.withCloseTimeout(closeTimeout);
      return this;
    }

    // Topics: prefix and router

    /**
     * Sets {@link KafkaPublisherOptions#topicPrefix()}.
     *
     * @param topicPrefix characters allowed in topic names ({@code [a-zA-Z0-9._-]}), may be empty
     * @return this builder
     */
    public Builder topicPrefix(String topicPrefix) {
      topics = topics.withTopicPrefix(topicPrefix);
      return this;
    }

    /**
     * Sets {@link KafkaPublisherOptions#topicRouter()}.
     *
     * @param topicRouter returns the topic of a message (the prefix is added to it)
     * @return this builder
     */
    public Builder topicRouter(Function<OutboxMessage, String> topicRouter) {
      topics = topics.withTopicRouter(topicRouter);
      return this;
    }

    // Producer properties

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
      producer = producer.withProperty(name, value);
      return this;
    }

    /**
     * Replaces all raw producer properties.
     *
     * @param properties the properties, each checked as by {@link #producerProperty}
     * @return this builder
     */
    public Builder producerProperties(Map<String, String> properties) {
      producer = producer.withProperties(properties);
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the immutable options
     */
    public KafkaPublisherOptions build() {
      producer.checkTogether();
      return new KafkaPublisherOptions(this);
    }
  }
}
