package dev.outbox.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link OutboxStore#claim} and {@link OutboxStore#recordAndClaim} are asked to take.
 *
 * @param instanceId the processor taking the leases
 * @param limit at most this many messages in all
 * @param lease how long a grant protects a head from other processors, on the store's clock
 * @param newHeads whether to claim heads nobody holds; when {@code false}, only heads the record
 *     keeps leased to the holder are read
 */
public record ClaimRequest(String instanceId, int limit, Duration lease, boolean newHeads) {

  /** Checks the components. */
  public ClaimRequest {
    Objects.requireNonNull(instanceId, "instanceId");
    Objects.requireNonNull(lease, "lease");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, but was " + limit);
    }
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be > 0, but was " + lease);
    }
  }
}
