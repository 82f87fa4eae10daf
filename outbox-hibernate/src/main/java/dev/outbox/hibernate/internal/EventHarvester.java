package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.jdbc.EventBatch;

/** Adds the pending events of an aggregate to the flush's batch. */
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

  /**
   * Adds one event per pending event of the aggregate, in registration order.
   *
   * @param entityId the identifier Hibernate knows the aggregate by
   */
  void harvest(AggregateRoot aggregate, Object entityId, EventBatch batch) {
    String aggregateType = name("aggregateType()", aggregate.aggregateType(), aggregate);
    String aggregateId = aggregateId(aggregate, entityId);
    for (DomainEvent event : aggregate.domainEvents()) {
      batch.add(aggregateType, aggregateId, event);
    }
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
