/**
 * The NATS JetStream adapter: {@link dev.outbox.nats.NatsEventPublisher}, its options {@link
 * dev.outbox.nats.NatsPublisherOptions} and {@link dev.outbox.nats.NatsStreamOptions}, and the
 * Guice module {@link dev.outbox.nats.NatsOutboxModule}; on the consumer's side, {@link
 * dev.outbox.nats.NatsIncoming} reads a received message as an {@link dev.outbox.IncomingMessage}.
 * These types are public API.
 */
package dev.outbox.nats;
