package dev.outbox.hibernate.testing;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A publisher standing in for a broker in engine-on-database tests: it "delivers" into memory,
 * fails a share of messages at random, and watches for the things that must never happen.
 */
public final class RecordingPublisher implements EventPublisher {

  private final double failureRate;
  private final Map<String, List<OutboxMessage>> deliveredByAggregate = new ConcurrentHashMap<>();
  private final Set<UUID> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<UUID> delivered = ConcurrentHashMap.newKeySet();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger duplicates = new AtomicInteger();
  private final AtomicInteger inFlightTwice = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private volatile java.util.function.Predicate<OutboxMessage> rejecting = message -> false;
  private volatile long delayMillis;

  public RecordingPublisher(double failureRate) {
    this.failureRate = failureRate;
  }

  /** Refuses the messages that match for good (a non-retryable failure), from now on. */
  public void reject(java.util.function.Predicate<OutboxMessage> refused) {
    this.rejecting = refused;
  }

  /** Makes every call take this long, like a slow broker. */
  public void delay(Duration delay) {
    this.delayMillis = delay.toMillis();
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    for (OutboxMessage message : messages) {
      if (!inFlight.add(message.id())) {
        inFlightTwice.incrementAndGet();
      }
    }
    try {
      if (delayMillis > 0) {
        try {
          Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      List<PublishResult> results = new ArrayList<>(messages.size());
      for (OutboxMessage message : messages) {
        if (rejecting.test(message)) {
          results.add(
              PublishResult.failed(
                  message.id(),
                  PublishException.permanent(message.id(), "test", "rejected", null)));
          continue;
        }
        if (ThreadLocalRandom.current().nextDouble() < failureRate) {
          failures.incrementAndGet();
          results.add(
              PublishResult.failed(
                  message.id(),
                  PublishException.retryable(message.id(), "test", "random failure", null)));
          continue;
        }
        if (!delivered.add(message.id())) {
          duplicates.incrementAndGet();
        }
        deliveredByAggregate
            .computeIfAbsent(
                message.aggregateId(),
                k -> java.util.Collections.synchronizedList(new ArrayList<>()))
            .add(message);
        results.add(PublishResult.published(message.id()));
      }
      return results;
    } finally {
      messages.forEach(m -> inFlight.remove(m.id()));
    }
  }

  /** Distinct messages delivered. */
  public int deliveredCount() {
    return delivered.size();
  }

  /** What one aggregate received, in delivery order, duplicates included. */
  public List<OutboxMessage> deliveredTo(String aggregateId) {
    List<OutboxMessage> list = deliveredByAggregate.get(aggregateId);
    return list == null ? List.of() : List.copyOf(list);
  }

  public Set<String> aggregates() {
    return deliveredByAggregate.keySet();
  }

  public int failures() {
    return failures.get();
  }

  public int duplicates() {
    return duplicates.get();
  }

  public int inFlightTwice() {
    return inFlightTwice.get();
  }

  public int closeCount() {
    return closed.get();
  }

  @Override
  public void close() {
    closed.incrementAndGet();
  }
}
