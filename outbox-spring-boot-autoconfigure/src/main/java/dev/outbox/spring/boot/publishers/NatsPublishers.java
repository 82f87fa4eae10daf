package dev.outbox.spring.boot.publishers;

import dev.outbox.nats.NatsEventPublisher;
import dev.outbox.nats.NatsPublisherOptions;
import dev.outbox.spi.EventPublisher;
import java.util.Map;
import java.util.function.BiFunction;

/** The NATS adapter's publisher from {@code outbox.nats.*}. */
public final class NatsPublishers
    implements BiFunction<Map<String, String>, String, EventPublisher> {

  @Override
  public EventPublisher apply(Map<String, String> properties, String prefix) {
    return NatsEventPublisher.connect(NatsPublisherOptions.fromMap(properties, prefix));
  }
}
