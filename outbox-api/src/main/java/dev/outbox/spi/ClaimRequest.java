package dev.outbox.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link OutboxStore#claim} and {@link OutboxStore#recordAndClaim} are asked to take.
 *
 * @param instanceId the processor taking the leases
 * @param limit at most this many messages in all
 * @param lease how long a grant protects a head from other processors, on the store's clock; a
 *     continued head keeps at least {@link #keptLease()} of it
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

  /**
   * How long a continued head's lease lasts at least, from the start of the transaction that
   * records it: {@link #keptPartOf nine tenths} of {@link #lease()}. The holder counts on no more.
   *
   * @return the kept part of the lease
   */
  public Duration keptLease() {
    return keptPartOf(lease);
  }

  /**
   * Nine tenths of a lease. A store may leave a continued head's lease as it is while this much of
   * it is left, renewing it in full only below, so that most continuations do not rewrite the
   * head's due time: on PostgreSQL such an update stays on its page and touches no index.
   *
   * @param lease a lease
   * @return nine tenths of it
   */
  public static Duration keptPartOf(Duration lease) {
    return lease.minus(lease.dividedBy(10));
  }
}
