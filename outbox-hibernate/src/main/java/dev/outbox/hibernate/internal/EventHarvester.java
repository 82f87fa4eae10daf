package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.spi.EventSerializer;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.id.uuid.UuidVersion7Strategy;

/** Turns the pending events of an aggregate into outbox rows. */
final class EventHarvester {

  private static final int MAX_NAME_LENGTH = 255;

  /** Whether a class overrides {@link AggregateRoot#aggregateId()}, whose default is null. */
  private static final ClassValue<Boolean> OVERRIDES_AGGREGATE_ID =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          try {
            return type.getMethod("aggregateId").getDeclaringClass() != AggregateRoot.class;
          } catch (NoSuchMethodException e) {
            return false;
          }
        }
      };

  private final EventSerializer serializer;
  private final RowHeaders headers;
  private final Clock clock;

  EventHarvester(EventSerializer serializer, RowHeaders headers, Clock clock) {
    this.serializer = serializer;
    this.headers = headers;
    this.clock = clock;
  }

  /**
   * Adds one row per pending event of the aggregate, in registration order.
   *
   * @param entityId the identifier Hibernate knows the aggregate by
   */
  void harvest(
      SharedSessionContractImplementor session,
      AggregateRoot aggregate,
      Object entityId,
      List<OutboxRow> rows) {
    String aggregateType = name("aggregateType()", aggregate.aggregateType(), aggregate);
    String aggregateId = aggregateId(aggregate, entityId);
    Instant now = clock.instant();
    for (DomainEvent event : aggregate.domainEvents()) {
      Instant occurredAt = event.occurredAt();
      Map<String, String> eventHeaders = headers.of(event, aggregateType, aggregateId);
      rows.add(
          new OutboxRow(
              UuidVersion7Strategy.INSTANCE.generateUuid(session),
              aggregateType,
              aggregateId,
              0,
              name("eventType()", event.eventType(), event),
              serializer.contentType(),
              serialize(event, aggregateType, aggregateId),
              eventHeaders,
              headers.json(eventHeaders, event),
              occurredAt != null ? occurredAt : now,
              now));
    }
  }

  private String serialize(DomainEvent event, String aggregateType, String aggregateId) {
    String payload;
    try {
      payload = serializer.serialize(event);
    } catch (RuntimeException e) {
      throw new OutboxException(
          "Cannot serialize event "
              + event.getClass().getName()
              + " of aggregate "
              + aggregateType
              + '/'
              + aggregateId
              + ": "
              + e.getMessage()
              + ". The flush failed and the transaction must roll back; nothing was written."
              + " Make the event serializable by "
              + serializer
              + '.',
          e);
    }
    if (payload == null) {
      throw new OutboxException(
          serializer + " returned null for event " + event.getClass().getName());
    }
    return payload;
  }

  private static String aggregateId(AggregateRoot aggregate, Object entityId) {
    String id = aggregate.aggregateId();
    if (id == null && OVERRIDES_AGGREGATE_ID.get(aggregate.getClass())) {
      throw new OutboxException(
          aggregate.getClass().getName()
              + ".aggregateId() returned null. It overrides AggregateRoot.aggregateId(), so it must"
              + " return the key of the aggregate that has pending events (or not override it, to"
              + " use the entity identifier). The flush failed and the transaction must roll back;"
              + " nothing was written.");
    }
    if (id == null) {
      if (entityId == null) {
        throw new OutboxException(
            aggregate.getClass().getName()
                + " has pending events but no identifier yet; persist it before flushing");
      }
      id = String.valueOf(entityId);
    }
    return name("aggregateId()", id, aggregate);
  }

  private static String name(String what, String value, Object owner) {
    if (value == null || value.isBlank() || value.length() > MAX_NAME_LENGTH) {
      throw new OutboxException(
          owner.getClass().getName()
              + '.'
              + what
              + " must be non-blank and at most "
              + MAX_NAME_LENGTH
              + " characters, but was "
              + (value == null ? "null" : '"' + value + '"'));
    }
    return value;
  }
}
