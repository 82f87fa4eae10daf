package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import java.time.Instant;
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
 * events (and the deleted ones {@link DeletedAggregateCapture} remembered), writes their events
 * with {@link FlushWriter} (head upsert, then multi-row inserts) in the same transaction, then
 * clears them.
 *
 * <p>Running after the entity statements keeps the head locks, which order the writers of one
 * aggregate, as short as the flush allows: they are held from here to the end of the transaction.
 */
final class FlushHarvestListener implements FlushEventListener, AutoFlushEventListener {

  private final OutboxContext context;
  private final EventHarvester harvester;
  private final FlushWriter writer;

  FlushHarvestListener(OutboxContext context, EventHarvester harvester, FlushWriter writer) {
    this.context = context;
    this.harvester = harvester;
    this.writer = writer;
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
    if (aggregates.isEmpty()) {
      return;
    }
    List<OutboxRow> rows = new ArrayList<>();
    for (AggregateRef ref : aggregates) {
      harvester.harvest(session, ref.aggregate(), ref.entityId(), rows);
    }
    OutboxContext.LeaseReceiver receiver = context.leaseReceiver();
    Instant leaseUntil = receiver == null ? null : Instant.now().plus(receiver.lease());
    FlushWriter.Written written =
        session.doReturningWork(connection -> writer.write(connection, rows, receiver));
    for (AggregateRef ref : aggregates) {
      ref.aggregate().clearDomainEvents();
    }
    session
        .getActionQueue()
        .registerCallback(
            (success, completed) -> {
              if (success) {
                if (!written.leased().isEmpty()) {
                  receiver.sink().accept(written.leased(), leaseUntil);
                }
                if (written.leftToClaim()) {
                  context.committed(); // rows no fast path carries: wake the processor to claim
                }
              }
            });
  }

  private static boolean isLive(Status status) {
    return status == Status.MANAGED || status == Status.READ_ONLY || status == Status.SAVING;
  }
}
