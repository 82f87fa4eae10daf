/**
 * Publishes outbox messages to Apache Kafka: {@link dev.outbox.kafka.KafkaEventPublisher}, its
 * {@link dev.outbox.kafka.KafkaPublisherOptions}, and the Guice {@link
 * dev.outbox.kafka.KafkaOutboxModule}.
 *
 * <p>Everything in this package is public API; {@code dev.outbox.kafka.internal} is not.
 */
package dev.outbox.kafka;
