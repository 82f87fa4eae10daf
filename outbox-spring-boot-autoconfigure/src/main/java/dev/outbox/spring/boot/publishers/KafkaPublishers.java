package dev.outbox.spring.boot.publishers;

import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.spi.EventPublisher;
import java.util.Map;
import java.util.function.BiFunction;

/** The Kafka adapter's publisher from {@code outbox.kafka.*}. */
public final class KafkaPublishers
    implements BiFunction<Map<String, String>, String, EventPublisher> {

  @Override
  public EventPublisher apply(Map<String, String> properties, String prefix) {
    return new KafkaEventPublisher(KafkaPublisherOptions.fromMap(properties, prefix));
  }
}
