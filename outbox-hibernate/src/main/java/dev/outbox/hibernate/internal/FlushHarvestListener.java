package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
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
 * multi-row inserts (one per 100 rows) in the same transaction, then clears them.
 *
 * <p>Running after the entity statements matters: the database assigns {@code position} at insert,
 * after the flush's updates have locked the aggregate rows, so two transactions that change the
 * same aggregate get positions in the order the database serialized them.
 */
final class FlushHarvestListener implements FlushEventListener, AutoFlushEventListener {

  private final OutboxContext context;
  private final EventHarvester harvester;
  private final LeaseOnWrite leaseOnWrite;
  private final OutboxRowWriter writer;

  FlushHarvestListener(
      OutboxContext context,
      EventHarvester harvester,
      LeaseOnWrite leaseOnWrite,
      OutboxRowWriter writer) {
    this.context = context;
    this.harvester = harvester;
    this.leaseOnWrite = leaseOnWrite;
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
    LeaseOnWrite.Leased leased =
        leaseOnWrite.apply(session, rows, receiver, rows.get(0).createdAt());
    writer.write(session, leased.rows());
    for (AggregateRef ref : aggregates) {
      ref.aggregate().clearDomainEvents();
    }
    session
        .getActionQueue()
        .registerCallback(
            (success, completed) -> {
              if (success) {
                if (!leased.messages().isEmpty()) {
                  receiver.sink().accept(leased.messages(), leased.until());
                }
                if (leased.messages().size() < leased.rows().size()) {
                  context.committed(); // rows that go the claimed way: wake the processor to claim
                }
              }
            });
  }

  private static boolean isLive(Status status) {
    return status == Status.MANAGED || status == Status.READ_ONLY || status == Status.SAVING;
  }
}
