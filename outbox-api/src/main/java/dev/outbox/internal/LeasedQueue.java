package dev.outbox.internal;

import dev.outbox.spi.LeasedHead;
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
 * Heads that committed transactions of this JVM wrote already leased to this instance, with their
 * messages, waiting to be published straight from memory: commit to broker ack without a claim.
 *
 * <p>Nothing handed over is dropped: a head whose lease would run out before a publish call could
 * finish, and every head handed over while the queue holds more than {@value #CAPACITY} messages,
 * is given back to the processor to release, so that a claim takes it at once.
 */
final class LeasedQueue {

  private static final Logger LOG = LoggerFactory.getLogger(LeasedQueue.class);
  static final int CAPACITY = 100_000;

  private record Leased(LeasedHead head, Instant leaseUntil, boolean release) {}

  private final ConcurrentLinkedQueue<Leased> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger size = new AtomicInteger();
  private final Duration publishTimeout;
  private final Clock clock;

  LeasedQueue(Duration publishTimeout, Clock clock) {
    this.publishTimeout = publishTimeout;
    this.clock = clock;
  }

  /** Adds heads; past the capacity they are queued only to be released. */
  void offer(List<LeasedHead> heads, Instant leaseUntil) {
    int messages = heads.stream().mapToInt(head -> head.messages().size()).sum();
    boolean full = size.addAndGet(messages) > CAPACITY;
    if (full) {
      size.addAndGet(-messages);
      LOG.debug("Leased queue full; {} heads are released to the claim", heads.size());
    }
    heads.forEach(head -> queue.add(new Leased(head, leaseUntil, full)));
  }

  /**
   * Takes up to {@code limit} messages' worth of heads whose lease leaves time to publish them, and
   * every head met on the way that must be released instead.
   */
  Batch poll(int limit) {
    Instant latestStart = clock.instant().plus(publishTimeout);
    List<LeasedHead> heads = new ArrayList<>();
    List<LeasedHead> release = new ArrayList<>();
    Instant earliest = null;
    Instant latest = null;
    int messages = 0;
    while (messages < limit) {
      Leased next = queue.poll();
      if (next == null) {
        break;
      }
      if (next.release()) {
        release.add(next.head());
        continue;
      }
      size.addAndGet(-next.head().messages().size());
      if (!next.leaseUntil().isAfter(latestStart)) {
        release.add(next.head());
        continue;
      }
      heads.add(next.head());
      messages += next.head().messages().size();
      earliest =
          earliest == null || next.leaseUntil().isBefore(earliest) ? next.leaseUntil() : earliest;
      latest = latest == null || next.leaseUntil().isAfter(latest) ? next.leaseUntil() : latest;
    }
    return new Batch(heads, earliest, latest, release);
  }

  /**
   * Takes every head still queued, to be released: the processor stops.
   *
   * @return the heads
   */
  List<LeasedHead> drain() {
    List<LeasedHead> heads = new ArrayList<>();
    for (Leased next = queue.poll(); next != null; next = queue.poll()) {
      if (!next.release()) {
        size.addAndGet(-next.head().messages().size());
      }
      heads.add(next.head());
    }
    return heads;
  }

  /**
   * What {@link #poll} took.
   *
   * @param heads heads to publish, none of whose leases runs out within a publish timeout
   * @param leaseUntil the earliest of their leases
   * @param latestLeaseUntil the latest of their leases
   * @param release heads to give up unsent
   */
  record Batch(
      List<LeasedHead> heads,
      Instant leaseUntil,
      Instant latestLeaseUntil,
      List<LeasedHead> release) {}
}
