package dev.outbox;

import java.time.Duration;
import java.time.Instant;

/**
 * A snapshot of an outbox for a health endpoint: whether it runs, what waits, and the last error.
 *
 * @param running whether the processor runs (in {@link DeliveryMode#CDC}: whether cleanup runs)
 * @param deliveryMode who delivers: the processor, or Debezium reading the database's log
 * @param instanceId the name this processor stamps on its claims
 * @param pending messages waiting to be published, across all instances; -1 when the store could
 *     not be read; 0 in {@link DeliveryMode#CDC}, where the connector's progress is the replication
 *     slot's (watch its lag, see the CDC documentation)
 * @param lag how long the oldest pending message has waited; zero when none waits or unknown
 * @param deadLetters messages in the dead letters; -1 when the store could not be read
 * @param lastError the last failure of this instance (publish, store or cleanup), or {@code null}
 * @param lastErrorAt when it happened, or {@code null}
 * @param checkedAt when the snapshot was taken
 */
public record OutboxHealth(
    boolean running,
    DeliveryMode deliveryMode,
    String instanceId,
    long pending,
    Duration lag,
    long deadLetters,
    String lastError,
    Instant lastErrorAt,
    Instant checkedAt) {

  /**
   * Whether it runs and its store could be read.
   *
   * @return {@code true} when healthy
   */
  public boolean isHealthy() {
    return running && pending >= 0;
  }
}
