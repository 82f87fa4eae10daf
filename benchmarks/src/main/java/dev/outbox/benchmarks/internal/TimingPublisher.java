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
 * aggregateId#sequence}.
 */
final class TimingPublisher implements EventPublisher {

  private final EventPublisher delegate;
  private final Map<String, Long> ackedAt = new ConcurrentHashMap<>();
  private final AtomicLong fromMemory = new AtomicLong();
  private final AtomicLong claimed = new AtomicLong();

  TimingPublisher(EventPublisher delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    List<PublishResult> results = delegate.publish(messages, timeout);
    long now = System.nanoTime();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      if (results.get(i).isPublished()) {
        String key = BenchAggregate.Happened.key(message.aggregateId(), message.payload());
        if (key != null) {
          ackedAt.putIfAbsent(key, now);
        }
        // position 0: written leased and published from memory (the fast path)
        (message.position() == 0 ? fromMemory : claimed).incrementAndGet();
      }
    }
    return results;
  }

  Map<String, Long> ackedAt() {
    return ackedAt;
  }

  long fromMemory() {
    return fromMemory.get();
  }

  long claimed() {
    return claimed.get();
  }

  void reset() {
    ackedAt.clear();
    fromMemory.set(0);
    claimed.set(0);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
