package dev.outbox.micrometer;

import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import java.time.Duration;

/**
 * The outbox's health snapshot, read again only once it is older than the time to live, and the
 * values the gauges show from it. A value the outbox does not know is {@link Double#NaN}: a store
 * that cannot be read (the snapshot's -1), and in {@link DeliveryMode#CDC} what waits and for how
 * long (the connector's replication slot knows, the outbox does not).
 */
final class HealthCache {

  private final Outbox outbox;
  private final long ttlNanos;
  private OutboxHealth health;
  private long readAt;

  HealthCache(Outbox outbox, Duration ttl) {
    this.outbox = outbox;
    this.ttlNanos = ttl.toNanos();
  }

  synchronized OutboxHealth get() {
    long now = System.nanoTime();
    if (health == null || now - readAt >= ttlNanos) {
      health = outbox.health();
      readAt = now;
    }
    return health;
  }

  /** Messages waiting to be published; NaN when unreadable or in CDC mode. */
  double pending() {
    OutboxHealth h = get();
    return waitingIsUnknown(h) ? Double.NaN : h.pending();
  }

  /** Messages in the dead letters; NaN when unreadable. */
  double deadLetters() {
    OutboxHealth h = get();
    return h.deadLetters() < 0 ? Double.NaN : h.deadLetters();
  }

  /** Age of the oldest pending message in seconds; NaN when unreadable or in CDC mode. */
  double lagSeconds() {
    OutboxHealth h = get();
    if (waitingIsUnknown(h)) {
      return Double.NaN;
    }
    Duration lag = h.lag() == null ? Duration.ZERO : h.lag();
    return lag.getSeconds() + lag.getNano() / 1e9;
  }

  /**
   * How long this instance's broker has been unavailable, in seconds: 0 while it takes messages.
   * Known even when the store cannot be read: the processor knows it.
   */
  double brokerOutageSeconds() {
    Duration outage = get().brokerOutage();
    return outage.getSeconds() + outage.getNano() / 1e9;
  }

  private static boolean waitingIsUnknown(OutboxHealth h) {
    return h.deliveryMode() == DeliveryMode.CDC || h.pending() < 0;
  }
}
