package dev.outbox.spi;

import java.time.Instant;

/**
 * Counts read from the store for health checks and gauges.
 *
 * @param pending messages waiting to be published (behind the cursors of their heads)
 * @param oldestPendingCreatedAt when the oldest of them was written, {@code null} when none waits
 * @param deadLetters messages in the dead-letter table
 */
public record OutboxStats(long pending, Instant oldestPendingCreatedAt, long deadLetters) {}
