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
 * messages were handed over at commit (the fast path) and how many were read from the table.
 */
final class TimingPublisher implements EventPublisher {

  private final EventPublisher delegate;
  private final Map<String, Long> ackedAt = new ConcurrentHashMap<>();
  private final AtomicLong fromMemory = new AtomicLong();
  private final AtomicLong claimed = new AtomicLong();
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
    List<PublishResult> results = delegate.publish(messages, timeout);
    long now = System.nanoTime();
    HandOverProbe split = probe;
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      if (results.get(i).isPublished()) {
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

  void reset() {
    ackedAt.clear();
    fromMemory.set(0);
    claimed.set(0);
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
