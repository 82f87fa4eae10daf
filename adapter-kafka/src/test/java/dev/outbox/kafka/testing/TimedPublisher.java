package dev.outbox.kafka.testing;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** Wraps a publisher and adds up how many batches it got and how long it spent on them. */
public final class TimedPublisher implements EventPublisher {

  private final EventPublisher delegate;
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong messages = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();

  /**
   * Wraps a publisher.
   *
   * @param delegate the publisher that does the work
   */
  public TimedPublisher(EventPublisher delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> batch, Duration timeout) {
    long start = System.nanoTime();
    try {
      return delegate.publish(batch, timeout);
    } finally {
      nanos.addAndGet(System.nanoTime() - start);
      batches.incrementAndGet();
      messages.addAndGet(batch.size());
    }
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    long count = Math.max(1, batches.get());
    return String.format(
        "%d batches of %d messages, %d ms in publish (%.1f ms per batch)",
        batches.get(), messages.get(), nanos.get() / 1_000_000, nanos.get() / 1e6 / count);
  }
}
