package dev.outbox.kafka.kill;

import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.kafka.testing.TestConsumer;
import dev.outbox.spi.WireHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Consumes a topic from the beginning on a thread of its own and keeps every record it receives, in
 * arrival order (which is partition order within each partition, so per-aggregate order).
 */
public final class RecordingConsumer implements AutoCloseable {

  /**
   * One received record.
   *
   * @param aggregateId the key
   * @param sequence the event's number within its aggregate (from the payload), from 0
   * @param messageId the outbox message id header
   * @param partition the partition
   * @param offset the offset
   * @param sentAt the record timestamp (producer send time), epoch milliseconds
   */
  public record Received(
      String aggregateId,
      long sequence,
      String messageId,
      int partition,
      long offset,
      long sentAt) {}

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Received> received = new ArrayList<>();
  private final Set<String> distinct = new HashSet<>();
  private final Thread thread;

  /**
   * Starts consuming.
   *
   * @param bootstrapServers the broker
   * @param topic the topic, which must exist
   */
  public RecordingConsumer(String bootstrapServers, String topic) {
    thread =
        new Thread(
            () -> {
              try (TestConsumer consumer = new TestConsumer(bootstrapServers, topic)) {
                consumer.pollUntil(
                    record -> {
                      E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(record.value());
                      String id = TestConsumer.headers(record).get(WireHeaders.MESSAGE_ID);
                      synchronized (this) {
                        received.add(
                            new Received(
                                record.key(),
                                event.sequence(),
                                id,
                                record.partition(),
                                record.offset(),
                                record.timestamp()));
                        distinct.add(id);
                      }
                    },
                    () -> !running.get(),
                    Duration.ofMinutes(10));
              } catch (RuntimeException e) {
                failure.set(e);
              }
            },
            "recording-consumer-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Distinct message ids received so far.
   *
   * @return the count
   */
  public synchronized int distinct() {
    return distinct.size();
  }

  /**
   * Records received so far, duplicates included.
   *
   * @return the count
   */
  public synchronized int deliveries() {
    return received.size();
  }

  /**
   * Every record received so far, in arrival order.
   *
   * @return a copy
   */
  public synchronized List<Received> received() {
    return List.copyOf(received);
  }

  /**
   * Whether the consumer thread failed.
   *
   * @return the failure or {@code null}
   */
  public Throwable failure() {
    return failure.get();
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
