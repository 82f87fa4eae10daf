package dev.outbox.kafka.testing;

import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Consumes a topic on a thread of its own, from the beginning, and records each end-to-end event
 * ({@link E2eAggregate.Stepped}) into a {@link DeliveryCheck} in arrival order.
 */
public final class BackgroundConsumer implements AutoCloseable {

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong deliveries = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread thread;

  /**
   * Starts consuming.
   *
   * @param bootstrapServers the broker
   * @param topic the topic, which must exist
   * @param check receives every delivery
   */
  public BackgroundConsumer(String bootstrapServers, String topic, DeliveryCheck check) {
    thread =
        new Thread(
            () -> {
              try (TestConsumer consumer = new TestConsumer(bootstrapServers, topic)) {
                consumer.pollUntil(
                    record -> {
                      E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(record.value());
                      check.record(
                          record.key(),
                          event.sequence(),
                          TestConsumer.headers(record).get(WireHeaders.MESSAGE_ID));
                      deliveries.incrementAndGet();
                    },
                    () -> !running.get(),
                    Duration.ofMinutes(5));
              } catch (RuntimeException e) {
                failure.set(e);
              }
            },
            "consumer-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * How many records arrived so far.
   *
   * @return the count, duplicates included
   */
  public long deliveries() {
    return deliveries.get();
  }

  /** Stops consuming and rethrows what the consumer thread failed with, if anything. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(10_000);
    if (failure.get() != null) {
      throw new IllegalStateException("The consumer failed", failure.get());
    }
  }
}
