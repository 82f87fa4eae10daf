package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.jdbc.EventBatch;
import dev.outbox.jdbc.JdbcOutbox;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.engine.spi.EntityEntry;
import org.hibernate.engine.spi.SessionImplementor;
import org.hibernate.engine.spi.Status;

/**
 * The events a session sends itself ({@code HibernateOutbox.send}), queued until its next flush
 * writes them together with the harvested ones, under the same head locks.
 *
 * <p>Order: a send first takes the events the session's aggregates registered before it into the
 * queue, then the sent event; the flush writes the queue, then what the aggregates registered
 * after. Events of one aggregate are therefore written in the order the application raised them,
 * whether it registered them on an entity or sent them. A rollback forgets the queue.
 */
final class ExplicitSends {

  static final String SEND_FAILED =
      "Nothing was sent; the events registered before it stay pending on their aggregates.";

  private final Map<SessionImplementor, EventBatch> queued =
      Collections.synchronizedMap(new WeakHashMap<>());
  private final JdbcOutbox outbox;
  private final EventHarvester harvester;

  ExplicitSends(JdbcOutbox outbox, EventHarvester harvester) {
    this.outbox = outbox;
    this.harvester = harvester;
  }

  /**
   * Queues an event for the session's next flush.
   *
   * @throws OutboxException when no transaction is open or the event cannot be written; nothing was
   *     queued
   */
  void send(
      SessionImplementor session, String aggregateType, String aggregateId, DomainEvent event) {
    if (!session.isTransactionInProgress()) {
      throw new OutboxException(
          "HibernateOutbox.send needs a transaction: an event must belong to one, or it could be"
              + " delivered for a change that never happened. Call it between"
              + " entityManager.getTransaction().begin() and commit(), or in a @Transactional"
              + " method. Nothing was sent.");
    }
    List<AggregateRef> pending = pendingAggregates(session);
    EventBatch events = outbox.batch(SEND_FAILED);
    for (AggregateRef ref : pending) {
      harvester.harvest(ref.aggregate(), ref.entityId(), events);
    }
    events.add(aggregateType, aggregateId, event);
    for (AggregateRef ref : pending) {
      ref.aggregate().clearDomainEvents();
    }
    EventBatch queue = queued.get(session);
    if (queue == null) {
      queued.put(session, events);
      session.getActionQueue().registerCallback((success, completed) -> queued.remove(session));
    } else {
      queue.addAll(events);
    }
  }

  /**
   * Takes the session's queue for its flush.
   *
   * @return the queued events, or a new empty batch
   */
  EventBatch take(SessionImplementor session, String consequence) {
    EventBatch queue = queued.remove(session);
    EventBatch batch = outbox.batch(consequence);
    return queue == null ? batch : batch.addAll(queue);
  }

  /** The session's aggregates with pending events, deleted ones included, in context order. */
  private static List<AggregateRef> pendingAggregates(SessionImplementor session) {
    List<AggregateRef> pending = new ArrayList<>();
    for (Map.Entry<Object, EntityEntry> entry :
        session.getPersistenceContextInternal().reentrantSafeEntityEntries()) {
      Status status = entry.getValue().getStatus();
      if (entry.getKey() instanceof AggregateRoot aggregate
          && !aggregate.domainEvents().isEmpty()
          && (FlushHarvestListener.isLive(status) || status == Status.DELETED)) {
        pending.add(new AggregateRef(aggregate, entry.getValue().getId()));
      }
    }
    return pending;
  }
}
