package dev.outbox.spring.boot.publishers;

import dev.outbox.rabbitmq.RabbitMqEventPublisher;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.spi.EventPublisher;
import java.util.Map;
import java.util.function.BiFunction;

/** The RabbitMQ adapter's publisher from {@code outbox.rabbitmq.*}. */
public final class RabbitmqPublishers
    implements BiFunction<Map<String, String>, String, EventPublisher> {

  @Override
  public EventPublisher apply(Map<String, String> properties, String prefix) {
    return new RabbitMqEventPublisher(RabbitMqPublisherOptions.fromMap(properties, prefix));
  }
}
