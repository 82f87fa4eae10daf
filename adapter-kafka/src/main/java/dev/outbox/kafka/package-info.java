/**
 * Publishes outbox messages to Apache Kafka: {@link dev.outbox.kafka.KafkaEventPublisher}, its
 * {@link dev.outbox.kafka.KafkaPublisherOptions}, and the Guice {@link
 * dev.outbox.kafka.KafkaOutboxModule}; on the consumer's side, {@link
 * dev.outbox.kafka.KafkaIncoming} reads a consumed record as an {@link dev.outbox.IncomingMessage}.
 *
 * <p>Everything in this package is public API; {@code dev.outbox.kafka.internal} is not.
 */
package dev.outbox.kafka;
