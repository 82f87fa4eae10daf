package dev.outbox.spring.boot.publishers;

import dev.outbox.servicebus.ServiceBusEventPublisher;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import dev.outbox.spi.EventPublisher;
import java.util.Map;
import java.util.function.BiFunction;

/** The Azure Service Bus adapter's publisher from {@code outbox.servicebus.*}. */
public final class AzureServicebusPublishers
    implements BiFunction<Map<String, String>, String, EventPublisher> {

  @Override
  public EventPublisher apply(Map<String, String> properties, String prefix) {
    return ServiceBusEventPublisher.create(ServiceBusPublisherOptions.fromMap(properties, prefix));
  }
}
