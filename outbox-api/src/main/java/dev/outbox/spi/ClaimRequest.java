package dev.outbox.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link OutboxStore#claim} is asked to take.
 *
 * @param instanceId the processor taking the claim
 * @param limit at most this many messages
 * @param now the processor's clock: only messages due at {@code now} and not leased at {@code now}
 * @param lease how long the claim protects the messages from other instances
 * @param orderedPerAggregate skip a message while its aggregate has an earlier pending one that is
 *     not due or is leased
 * @param holdAggregateOnDeadLetter also skip it while its aggregate has a dead letter
 */
public record ClaimRequest(
    String instanceId,
    int limit,
    Instant now,
    Duration lease,
    boolean orderedPerAggregate,
    boolean holdAggregateOnDeadLetter) {

  /** Checks the components. */
  public ClaimRequest {
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(lease, "lease");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, but was " + limit);
    }
  }

  /**
   * When the claim runs out.
   *
   * @return {@code now + lease}
   */
  public Instant leaseUntil() {
    return now.plus(lease);
  }
}
