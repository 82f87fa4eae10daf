package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import dev.outbox.jdbc.EventBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.engine.spi.EntityEntry;
import org.hibernate.engine.spi.Status;
import org.hibernate.event.spi.AutoFlushEvent;
import org.hibernate.event.spi.AutoFlushEventListener;
import org.hibernate.event.spi.EventSource;
import org.hibernate.event.spi.FlushEvent;
import org.hibernate.event.spi.FlushEventListener;

/**
 * Runs last in every flush that wrote to the database: finds each managed aggregate with pending
 * events (and the deleted ones {@link DeletedAggregateCapture} remembered), writes their events as
 * one {@link EventBatch} (head upsert, then multi-row inserts) in the same transaction, then clears
 * them; after the commit, the batch hands them to the processor of this JVM.
 *
 * <p>Running after the entity statements keeps the head locks, which order the writers of one
 * aggregate, as short as the flush allows: they are held from here to the end of the transaction.
 */
final class FlushHarvestListener implements FlushEventListener, AutoFlushEventListener {

  /** The end of the message of an event that cannot be written. */
  static final String FLUSH_FAILED =
      "The flush failed and the transaction must roll back; nothing was written.";

  private final ExplicitSends sends;
  private final EventHarvester harvester;

  FlushHarvestListener(ExplicitSends sends, EventHarvester harvester) {
    this.sends = sends;
    this.harvester = harvester;
  }

  @Override
  public void onFlush(FlushEvent event) {
    harvest(event);
  }

  @Override
  public void onAutoFlush(AutoFlushEvent event) {
    if (event.isFlushRequired()) {
      harvest(event);
    } else {
      // Nothing was written: the events stay on their aggregates for the next flush.
      DeletedAggregateCapture.take(event);
    }
  }

  private void harvest(FlushEvent event) {
    EventSource session = event.getSession();
    List<AggregateRef> aggregates = new ArrayList<>(DeletedAggregateCapture.take(event));
    for (Map.Entry<Object, EntityEntry> entry :
        session.getPersistenceContextInternal().reentrantSafeEntityEntries()) {
      if (entry.getKey() instanceof AggregateRoot aggregate
          && !aggregate.domainEvents().isEmpty()
          && isLive(entry.getValue().getStatus())) {
        aggregates.add(new AggregateRef(aggregate, entry.getValue().getId()));
      }
    }
    EventBatch batch = sends.take(session, FLUSH_FAILED);
    for (AggregateRef ref : aggregates) {
      harvester.harvest(ref.aggregate(), ref.entityId(), batch);
    }
    if (batch.size() == 0) {
      return;
    }
    Runnable afterCommit = session.doReturningWork(batch::write);
    for (AggregateRef ref : aggregates) {
      ref.aggregate().clearDomainEvents();
    }
    session
        .getActionQueue()
        .registerCallback(
            (success, completed) -> {
              if (success) {
                afterCommit.run();
              }
            });
  }

  static boolean isLive(Status status) {
    return status == Status.MANAGED || status == Status.READ_ONLY || status == Status.SAVING;
  }
}
