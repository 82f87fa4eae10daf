/**
 * Publishes outbox messages to Azure Service Bus queues and topics with the official Azure SDK.
 *
 * <p>Public API: {@link dev.outbox.servicebus.ServiceBusEventPublisher}, its options {@link
 * dev.outbox.servicebus.ServiceBusPublisherOptions} and the Guice module {@link
 * dev.outbox.servicebus.ServiceBusOutboxModule}. Everything in {@code
 * dev.outbox.servicebus.internal} is not API.
 */
package dev.outbox.servicebus;
