package dev.outbox.benchmarks.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps the adapter's publisher and notes, for each acknowledged message, when {@code publish}
 * returned: the moment the processor knows the broker acknowledged it. Keyed by {@code
 * aggregateId#sequence}. With a {@link HandOverProbe}, it also counts how many acknowledged
 * messages were handed over at commit (the fast path) and how many were read from the table. It
 * counts the {@code publish} calls and notes when the first acknowledgement came, for the outage's
 * probes and its first delivery after the broker's return ({@link OutageRecovery}).
 */
final class TimingPublisher implements EventPublisher {

  /** {@link #firstAckAt()} before any acknowledgement. */
  static final long NONE = Long.MIN_VALUE;

  private final EventPublisher delegate;
  private final Map<String, Long> ackedAt = new ConcurrentHashMap<>();
  private final AtomicLong fromMemory = new AtomicLong();
  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong firstAckAt = new AtomicLong(NONE);
  private volatile HandOverProbe probe;

  TimingPublisher(EventPublisher delegate) {
    this.delegate = delegate;
  }

  /** Splits what is acknowledged from now on by where it came from; {@code null} stops it. */
  void probe(HandOverProbe probe) {
    this.probe = probe;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    calls.incrementAndGet();
    List<PublishResult> results = delegate.publish(messages, timeout);
    long now = System.nanoTime();
    HandOverProbe split = probe;
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      if (results.get(i).isPublished()) {
        firstAckAt.compareAndSet(NONE, now);
        String key = BenchAggregate.Happened.key(message.aggregateId(), message.payload());
        if (key != null) {
          ackedAt.putIfAbsent(key, now);
        }
        if (split != null) {
          (split.takeHandedOver(message) ? fromMemory : claimed).incrementAndGet();
        }
      }
    }
    return results;
  }

  Map<String, Long> ackedAt() {
    return ackedAt;
  }

  /** Acknowledged messages handed over at commit; -1 when not measured. */
  long fromMemory() {
    return probe == null ? -1 : fromMemory.get();
  }

  /** Acknowledged messages read from the table (claim or read-on); -1 when not measured. */
  long claimed() {
    return probe == null ? -1 : claimed.get();
  }

  /** The {@code publish} calls made so far, counted when they start. */
  long calls() {
    return calls.get();
  }

  /** When the first {@code publish} call with an acknowledged message returned; {@link #NONE}. */
  long firstAckAt() {
    return firstAckAt.get();
  }

  void reset() {
    ackedAt.clear();
    fromMemory.set(0);
    claimed.set(0);
    calls.set(0);
    firstAckAt.set(NONE);
  }

  @Override
  public void recreateClient() {
    delegate.recreateClient();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
