package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Messages that committed transactions of this JVM wrote already leased to this instance, waiting
 * to be published straight from memory: commit to broker ack without a claim round trip.
 *
 * <p>A message whose lease would run out before a publish call could finish is left to the claim,
 * which takes it once the lease has run out; so is everything when the queue overflows.
 */
final class LeasedQueue {

  private static final Logger LOG = LoggerFactory.getLogger(LeasedQueue.class);
  static final int CAPACITY = 100_000;

  private record Leased(OutboxMessage message, Instant leaseUntil) {}

  private final ConcurrentLinkedQueue<Leased> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger size = new AtomicInteger();
  private final Duration publishTimeout;
  private final Clock clock;

  LeasedQueue(Duration publishTimeout, Clock clock) {
    this.publishTimeout = publishTimeout;
    this.clock = clock;
  }

  /** Adds messages; returns false (adding nothing) when the queue is full. */
  boolean offer(List<OutboxMessage> messages, Instant leaseUntil) {
    if (size.addAndGet(messages.size()) > CAPACITY) {
      size.addAndGet(-messages.size());
      LOG.debug("Leased queue full; {} messages go the claimed way", messages.size());
      return false;
    }
    messages.forEach(message -> queue.add(new Leased(message, leaseUntil)));
    return true;
  }

  /** A batch of messages whose lease leaves time to publish them. */
  Batch poll(int limit) {
    Instant latestStart = clock.instant().plus(publishTimeout);
    List<OutboxMessage> batch = new ArrayList<>();
    Instant earliest = null;
    Instant latest = null;
    while (batch.size() < limit) {
      Leased next = queue.poll();
      if (next == null) {
        break;
      }
      size.decrementAndGet();
      if (next.leaseUntil().isAfter(latestStart)) {
        batch.add(next.message());
        earliest =
            earliest == null || next.leaseUntil().isBefore(earliest) ? next.leaseUntil() : earliest;
        latest = latest == null || next.leaseUntil().isAfter(latest) ? next.leaseUntil() : latest;
      }
    }
    return new Batch(batch, earliest, latest);
  }

  /**
   * What {@link #poll} took.
   *
   * @param messages the messages, none of whose leases runs out within a publish timeout
   * @param leaseUntil the earliest of their leases
   * @param latestLeaseUntil the latest of their leases
   */
  record Batch(List<OutboxMessage> messages, Instant leaseUntil, Instant latestLeaseUntil) {}
}
