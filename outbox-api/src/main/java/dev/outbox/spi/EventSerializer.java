package dev.outbox.spi;

import dev.outbox.DomainEvent;

/**
 * Turns a {@link DomainEvent} into the payload stored in the outbox and sent to the broker.
 * Implementations are thread-safe.
 */
public interface EventSerializer {

  /**
   * Serializes one event.
   *
   * @param event the event
   * @return the payload text, stored and sent exactly as returned
   * @throws RuntimeException when the event cannot be serialized; the flush then fails with a
   *     message naming the event class, and the business transaction rolls back
   */
  String serialize(DomainEvent event);

  /**
   * The media type of what {@link #serialize} returns.
   *
   * @return {@code application/json} by default
   */
  default String contentType() {
    return dev.outbox.OutboxMessage.JSON;
  }
}
