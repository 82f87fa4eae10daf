package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;
import org.hibernate.event.spi.MergeContext;
import org.hibernate.event.spi.MergeEvent;
import org.hibernate.event.spi.MergeEventListener;

/**
 * Carries the pending events of a detached aggregate over to the managed instance that {@code
 * merge} returns, so that they are written at the next flush instead of being lost with the
 * detached copy.
 */
final class MergeEventsListener implements MergeEventListener {

  @Override
  public void onMerge(MergeEvent event) {
    moveEvents(event);
  }

  @Override
  public void onMerge(MergeEvent event, MergeContext copiedAlready) {
    moveEvents(event);
  }

  private static void moveEvents(MergeEvent event) {
    if (event.getOriginal() instanceof AggregateRoot detached
        && event.getResult() instanceof AggregateRoot managed
        && detached != managed) {
      detached.moveDomainEventsTo(managed);
    }
  }
}
