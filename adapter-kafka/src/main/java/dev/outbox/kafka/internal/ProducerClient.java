package dev.outbox.kafka.internal;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * A producer and its helpers, created and closed together: the topic lookups, the flusher, what it
 * hears from the cluster, and the classifier of its failures.
 *
 * @param producer the idempotent producer
 * @param metadata the topic lookups
 * @param flusher sends what a call appended at once
 * @param contact what the producer hears from the cluster
 * @param failures the classifier of its failures
 */
public record ProducerClient(
    Producer<String, byte[]> producer,
    TopicMetadata metadata,
    Flusher flusher,
    ClusterContact contact,
    KafkaFailures failures) {

  /**
   * Creates a producer and its helpers.
   *
   * @param config the complete producer configuration ({@link ProducerSettings#producerConfig})
   * @return the client
   * @throws org.apache.kafka.common.KafkaException when the producer cannot be created
   */
  public static ProducerClient open(Map<String, Object> config) {
    return of(new KafkaProducer<>(config), new KafkaFailures(ProducerSettings.saslUser(config)));
  }

  /**
   * Wraps a producer.
   *
   * @param producer the producer
   * @param failures the classifier of its failures
   * @return the client
   */
  static ProducerClient of(Producer<String, byte[]> producer, KafkaFailures failures) {
    ClusterContact contact = new ClusterContact(producer);
    return new ProducerClient(
        producer, new TopicMetadata(producer, contact), new Flusher(producer), contact, failures);
  }

  /**
   * Closes the producer within {@code timeout} (zero: at once, failing what it holds).
   *
   * @param timeout how long the producer may take to send what it holds
   */
  public void close(Duration timeout) {
    try {
      metadata.close();
      producer.close(timeout);
    } finally {
      flusher.close();
    }
  }
}
