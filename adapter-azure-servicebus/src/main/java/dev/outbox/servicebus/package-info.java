/**
 * Publishes outbox messages to Azure Service Bus queues and topics with the official Azure SDK.
 *
 * <p>Public API: {@link dev.outbox.servicebus.ServiceBusEventPublisher}, its options {@link
 * dev.outbox.servicebus.ServiceBusPublisherOptions} and the Guice module {@link
 * dev.outbox.servicebus.ServiceBusOutboxModule}; on the consumer's side, {@link
 * dev.outbox.servicebus.ServiceBusIncoming} reads a received message as an {@link
 * dev.outbox.IncomingMessage}. Everything in {@code dev.outbox.servicebus.internal} is not API.
 */
package dev.outbox.servicebus;
