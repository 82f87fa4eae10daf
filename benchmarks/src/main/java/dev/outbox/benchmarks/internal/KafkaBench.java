package dev.outbox.benchmarks.internal;

import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.TcpProxy;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Kafka in this JVM ({@link EmbeddedKafka}, a real KRaft broker), the relay's topic and the bare
 * producer's ceiling. The broker also has a listener reached only through a {@link TcpProxy}
 * ({@link EmbeddedKafka.Builder#proxied()}), for the outage; every other benchmark connects
 * directly.
 */
public final class KafkaBench implements ProxiedBroker, AutoCloseable {

  /** The relay's aggregate type, and so its topic (the adapter's default routing). */
  public static final String TOPIC = "bench-kafka";

  /** The ceiling's topic, with as many partitions. */
  public static final String CEILING_TOPIC = "bench-kafka-ceiling";

  /** Partitions of each topic. */
  public static final int PARTITIONS = 3;

  /** A diagnostic override of the producer's {@code linger.ms} (the adapter's default is 5). */
  public static final String LINGER_PROPERTY = "bench.kafka.lingerMs";

  private final EmbeddedKafka kafka;

  private KafkaBench(EmbeddedKafka kafka) {
    this.kafka = kafka;
  }

  /**
   * Starts the broker and creates the topics.
   *
   * @return the running broker
   */
  public static KafkaBench start() {
    EmbeddedKafka kafka = EmbeddedKafka.builder().proxied().start();
    kafka.createTopic(TOPIC, PARTITIONS);
    kafka.createTopic(CEILING_TOPIC, PARTITIONS);
    return new KafkaBench(kafka);
  }

  /**
   * Where clients connect.
   *
   * @return host:port
   */
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  @Override
  public String name() {
    return "kafka";
  }

  /**
   * The relay's topic.
   *
   * @return {@value #TOPIC}
   */
  @Override
  public String aggregateType() {
    return TOPIC;
  }

  @Override
  public TcpProxy proxy() {
    return kafka.proxy();
  }

  /**
   * A new adapter publisher whose producer bootstraps from the proxied listener, so that all its
   * connections go through {@link #proxy()}; the adapter's defaults otherwise ({@code
   * delivery.timeout.ms} 30 s, the outbox's publish timeout 30 s).
   *
   * @return the publisher
   */
  @Override
  public EventPublisher publisherThroughProxy() {
    return new KafkaEventPublisher(options(kafka.proxiedBootstrapServers()));
  }

  /** Nothing: the topic keeps what it received, as for every other Kafka benchmark. */
  @Override
  public void purge() {}

  /**
   * The adapter's options on this broker, otherwise its defaults.
   *
   * @return the options
   */
  public KafkaPublisherOptions options() {
    return options(kafka.bootstrapServers());
  }

  private static KafkaPublisherOptions options(String bootstrapServers) {
    KafkaPublisherOptions.Builder options =
        KafkaPublisherOptions.builder().bootstrapServers(bootstrapServers);
    String linger = System.getProperty(LINGER_PROPERTY);
    if (linger != null) {
      options.producerProperty("linger.ms", linger);
    }
    return options.build();
  }

  /**
   * A new adapter publisher.
   *
   * @return the publisher
   */
  public EventPublisher publisher() {
    return new KafkaEventPublisher(options());
  }

  /**
   * The bare producer with the adapter's settings ({@link KafkaPublisherOptions#producerConfig()}:
   * acks=all, idempotence, one request in flight, linger 5 ms) sending the records the adapter
   * would ({@link KafkaPublisherOptions#recordFor}), on {@value #CEILING_TOPIC}, all at once and
   * waiting for every acknowledgement.
   *
   * @param records how many
   * @param aggregates over how many keys
   * @return records per second
   */
  public double ceiling(int records, int aggregates) {
    KafkaPublisherOptions ceiling =
        options().toBuilder().topicRouter(message -> CEILING_TOPIC).build();
    AtomicLong acked = new AtomicLong();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (Producer<String, byte[]> producer = new KafkaProducer<>(ceiling.producerConfig())) {
      producer.partitionsFor(CEILING_TOPIC);
      long start = System.nanoTime();
      for (int i = 0; i < records; i++) {
        producer.send(
            ceiling.recordFor(SyntheticMessages.message(TOPIC, i, aggregates)),
            (metadata, error) -> {
              if (error == null) {
                acked.incrementAndGet();
              } else {
                failure.compareAndSet(null, error);
              }
            });
      }
      producer.flush();
      double seconds = (System.nanoTime() - start) / 1e9;
      if (failure.get() != null || acked.get() != records) {
        throw new IllegalStateException(
            "Kafka ceiling: " + acked + " of " + records + " acked", failure.get());
      }
      return records / seconds;
    }
  }

  @Override
  public void close() {
    kafka.close();
  }
}
