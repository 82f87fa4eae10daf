package dev.outbox.spi;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How the aggregates with work stand, for operators: how many wait for a retry, how many wait for
 * the broker, how many are held at a dead letter, and which instances hold leases on how many.
 *
 * @param retrying aggregates whose next message failed and waits for its next attempt, leased by
 *     nobody
 * @param held aggregates stopped at a dead letter ({@code holdAggregateOnDeadLetter})
 * @param leasesByInstance live leases (not yet expired on the database clock) per instance id,
 *     sorted by instance id
 * @param waitingForBroker aggregates whose last send failed for a broker outage (their last error
 *     starts with {@link #BROKER_UNAVAILABLE}), leased by nobody and not held; they count no
 *     attempt
 */
public record AggregateCounts(
    long retrying, long held, Map<String, Long> leasesByInstance, long waitingForBroker) {

  /**
   * How the error the processor records for a send that failed for the broker's fault, not the
   * message's, begins: a store counts {@link #waitingForBroker()} by it.
   */
  public static final String BROKER_UNAVAILABLE = "broker unavailable (no attempt counted): ";

  /** Copies the map, sorted by instance id. */
  public AggregateCounts {
    leasesByInstance =
        Collections.unmodifiableMap(
            new TreeMap<>(Objects.requireNonNull(leasesByInstance, "leasesByInstance")));
  }

  /**
   * All live leases.
   *
   * @return the sum over the instances
   */
  public long leases() {
    return leasesByInstance.values().stream().mapToLong(Long::longValue).sum();
  }
}
