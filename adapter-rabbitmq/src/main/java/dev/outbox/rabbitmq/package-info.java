/**
 * The RabbitMQ adapter: {@link dev.outbox.rabbitmq.RabbitMqEventPublisher} publishes outbox
 * messages with publisher confirms and mandatory routing, configured by {@link
 * dev.outbox.rabbitmq.RabbitMqPublisherOptions} and wired by {@link
 * dev.outbox.rabbitmq.RabbitMqOutboxModule}; on the consumer's side, {@link
 * dev.outbox.rabbitmq.RabbitMqIncoming} reads a delivery as an {@link dev.outbox.IncomingMessage}.
 *
 * <p>Everything in this package is public API; {@code dev.outbox.rabbitmq.internal} is not.
 */
package dev.outbox.rabbitmq;
