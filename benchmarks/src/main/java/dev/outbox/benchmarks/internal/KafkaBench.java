package dev.outbox.benchmarks.internal;

import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.kafka.internal.ProducerSettings;
import dev.outbox.kafka.internal.RecordMapper;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.spi.EventPublisher;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Kafka in this JVM ({@link EmbeddedKafka}, a real KRaft broker), the relay's topic and the bare
 * producer's ceiling.
 */
public final class KafkaBench implements AutoCloseable {

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
    EmbeddedKafka kafka = EmbeddedKafka.start();
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

  /**
   * The adapter's options on this broker, otherwise its defaults.
   *
   * @return the options
   */
  public KafkaPublisherOptions options() {
    KafkaPublisherOptions.Builder options =
        KafkaPublisherOptions.builder().bootstrapServers(kafka.bootstrapServers());
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
   * The bare producer with the adapter's settings ({@link ProducerSettings#producerConfig}:
   * acks=all, idempotence, one request in flight, linger 5 ms) sending the same records ({@link
   * RecordMapper}) all at once and waiting for every acknowledgement.
   *
   * @param records how many
   * @param aggregates over how many keys
   * @return records per second
   */
  public double ceiling(int records, int aggregates) {
    AtomicLong acked = new AtomicLong();
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (Producer<String, byte[]> producer =
        new KafkaProducer<>(ProducerSettings.producerConfig(options()))) {
      producer.partitionsFor(CEILING_TOPIC);
      long start = System.nanoTime();
      for (int i = 0; i < records; i++) {
        producer.send(
            RecordMapper.toRecord(SyntheticMessages.message(TOPIC, i, aggregates), CEILING_TOPIC),
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
