/**
 * The RabbitMQ adapter: {@link dev.outbox.rabbitmq.RabbitMqEventPublisher} publishes outbox
 * messages with publisher confirms and mandatory routing, configured by {@link
 * dev.outbox.rabbitmq.RabbitMqPublisherOptions} and wired by {@link
 * dev.outbox.rabbitmq.RabbitMqOutboxModule}.
 *
 * <p>Everything in this package is public API; {@code dev.outbox.rabbitmq.internal} is not.
 */
package dev.outbox.rabbitmq;
