package dev.outbox.micrometer;

import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An outbox that only answers {@link #health()}, with a snapshot the test sets, and counts reads.
 */
final class FakeOutbox implements Outbox {

  private static final Instant CHECKED_AT = Instant.parse("2024-05-01T12:00:00Z");

  private volatile OutboxHealth health;
  private final AtomicInteger healthReads = new AtomicInteger();

  private FakeOutbox(OutboxHealth health) {
    this.health = health;
  }

  /** Polling delivery with a readable store. */
  static FakeOutbox polling(long pending, Duration lag, long deadLetters) {
    return new FakeOutbox(health(DeliveryMode.POLLING, pending, lag, deadLetters));
  }

  /** A store that cannot be read: the engine's snapshot shows -1 and a lag of zero. */
  static FakeOutbox unreadable() {
    return new FakeOutbox(health(DeliveryMode.POLLING, -1, Duration.ZERO, -1));
  }

  /** CDC delivery: the engine reports pending 0 and lag zero, which it does not know. */
  static FakeOutbox cdc(long deadLetters) {
    return new FakeOutbox(health(DeliveryMode.CDC, 0, Duration.ZERO, deadLetters));
  }

  private static OutboxHealth health(
      DeliveryMode mode, long pending, Duration lag, long deadLetters) {
    String error = pending < 0 ? "store unreachable" : null;
    return new OutboxHealth(
        true,
        mode,
        "fake-1",
        pending,
        lag,
        deadLetters,
        error,
        error == null ? null : CHECKED_AT,
        CHECKED_AT);
  }

  /** A processor whose broker has been unavailable for {@code outage}. */
  static FakeOutbox brokerDownFor(Duration outage) {
    OutboxHealth up = health(DeliveryMode.POLLING, 5, Duration.ofSeconds(40), 0);
    return new FakeOutbox(
        new OutboxHealth(
            up.running(),
            up.deliveryMode(),
            up.instanceId(),
            up.pending(),
            up.lag(),
            up.deadLetters(),
            "connection refused",
            CHECKED_AT,
            CHECKED_AT,
            CHECKED_AT.minus(outage),
            "connection refused",
            Duration.ofMinutes(1)));
  }

  /** From now on the snapshot of another fake, e.g. {@code unreadable().health()}. */
  void setHealth(OutboxHealth health) {
    this.health = health;
  }

  int healthReads() {
    return healthReads.get();
  }

  @Override
  public OutboxHealth health() {
    healthReads.incrementAndGet();
    return health;
  }

  @Override
  public void start() {}

  @Override
  public void close() {}

  @Override
  public int runOnce() {
    return 0;
  }

  @Override
  public int cleanUpOnce() {
    return 0;
  }

  @Override
  public void wakeUp() {}

  @Override
  public boolean isRunning() {
    return true;
  }

  @Override
  public DeadLetterService deadLetters() {
    throw new UnsupportedOperationException("not needed by the metrics");
  }
}
