package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.engine.spi.EntityEntry;
import org.hibernate.engine.spi.Status;
import org.hibernate.event.spi.AutoFlushEvent;
import org.hibernate.event.spi.AutoFlushEventListener;
import org.hibernate.event.spi.FlushEvent;
import org.hibernate.event.spi.FlushEventListener;

/**
 * Runs first in every flush and remembers the aggregates being deleted that have pending events:
 * once the flush has executed the deletes they are gone from the persistence context, so {@link
 * FlushHarvestListener}, which runs last, could not find them any more.
 */
final class DeletedAggregateCapture implements FlushEventListener, AutoFlushEventListener {

  private record Captured(FlushEvent event, List<AggregateRef> aggregates) {}

  private static final ThreadLocal<Captured> CAPTURED = new ThreadLocal<>();

  @Override
  public void onFlush(FlushEvent event) {
    capture(event);
  }

  @Override
  public void onAutoFlush(AutoFlushEvent event) {
    capture(event);
  }

  /**
   * The deleted aggregates captured at the start of this flush.
   *
   * @return the captured aggregates, empty when there were none
   */
  static List<AggregateRef> take(FlushEvent event) {
    Captured captured = CAPTURED.get();
    if (captured == null) {
      return List.of();
    }
    CAPTURED.remove();
    return captured.event() == event ? captured.aggregates() : List.of();
  }

  private static void capture(FlushEvent event) {
    List<AggregateRef> deleted = null;
    for (Map.Entry<Object, EntityEntry> entry :
        event.getSession().getPersistenceContextInternal().reentrantSafeEntityEntries()) {
      if (entry.getKey() instanceof AggregateRoot aggregate
          && entry.getValue().getStatus() == Status.DELETED
          && !aggregate.domainEvents().isEmpty()) {
        if (deleted == null) {
          deleted = new ArrayList<>();
        }
        deleted.add(new AggregateRef(aggregate, entry.getValue().getId()));
      }
    }
    if (deleted != null) {
      CAPTURED.set(new Captured(event, deleted));
    } else if (CAPTURED.get() != null) {
      CAPTURED.remove();
    }
  }
}
