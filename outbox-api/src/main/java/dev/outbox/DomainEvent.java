package dev.outbox;

import java.time.Instant;
import java.util.Map;

/**
 * Something that happened to an {@link AggregateRoot}, told to other services through the outbox.
 *
 * <p>Implementations are usually records; the serializer turns the record's components into the
 * payload. The methods here are not bean getters, so Jackson does not put them into the payload. A
 * record may override them with a component of the same name (for example {@code Instant
 * occurredAt}).
 */
public interface DomainEvent {

  /**
   * The stable logical name of this event on the wire.
   *
   * @return the {@link EventType} annotation's value when present, otherwise the simple class name
   */
  default String eventType() {
    EventType annotation = getClass().getAnnotation(EventType.class);
    return annotation != null ? annotation.value() : getClass().getSimpleName();
  }

  /**
   * Metadata sent with the event as broker headers: correlation and causation ids, tenant, ...
   *
   * @return an empty map by default; keys and values must not be null
   */
  default Map<String, String> headers() {
    return Map.of();
  }

  /**
   * When the event happened.
   *
   * @return {@code null} by default, which means "when the flush wrote it to the outbox"
   */
  default Instant occurredAt() {
    return null;
  }
}
