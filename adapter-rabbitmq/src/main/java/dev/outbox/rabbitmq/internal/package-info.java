/**
 * Implementation of the RabbitMQ adapter: connection and per-thread channels, batch confirms, AMQP
 * properties, URI parsing and option reading. Not API: it may change in any release.
 */
package dev.outbox.rabbitmq.internal;
