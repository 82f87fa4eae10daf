package dev.outbox.micrometer;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import java.time.Duration;

/** The outbox's health snapshot, read again only once it is older than the time to live. */
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
}
