package dev.outbox;

import java.time.Duration;
import java.time.Instant;

/**
 * A snapshot of an outbox for a health endpoint: whether it runs, what waits, and the last error.
 *
 * @param running whether the processor runs (in {@link DeliveryMode#CDC}: whether cleanup runs)
 * @param deliveryMode who delivers: the processor, or Debezium reading the database's log
 * @param instanceId the name this processor stamps on its claims: {@link
 *     OutboxOptions#instanceId()}, with a suffix when another outbox of this JVM ran under it when
 *     this one started
 * @param pending messages waiting to be published, across all instances; -1 when the store could
 *     not be read; 0 in {@link DeliveryMode#CDC}, where the connector's progress is the replication
 *     slot's (watch its lag, see the CDC documentation)
 * @param lag how long the oldest pending message has waited; zero when none waits or unknown
 * @param deadLetters messages in the dead letters; -1 when the store could not be read
 * @param lastError the last failure of this instance (publish, store or cleanup), or {@code null}
 * @param lastErrorAt when it happened, or {@code null}
 * @param checkedAt when the snapshot was taken
 * @param brokerUnavailableSince when this instance's broker stopped taking messages (a failure of
 *     the broker or the connection, not of a message), or {@code null} while it takes them
 * @param brokerUnavailableReason why, in one line (for example that the credentials were refused),
 *     or {@code null} while the broker takes messages
 * @param brokerOutageTolerance how long a broker outage may last before the outbox is unhealthy
 *     ({@link OutboxOptions#brokerOutageTolerance()})
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
    Instant checkedAt,
    Instant brokerUnavailableSince,
    String brokerUnavailableReason,
    Duration brokerOutageTolerance) {

  /**
   * A snapshot of an outbox whose broker takes messages, with the default outage tolerance.
   *
   * @param running whether the processor runs
   * @param deliveryMode who delivers
   * @param instanceId the processor's name
   * @param pending messages waiting, or -1
   * @param lag the age of the oldest pending message
   * @param deadLetters dead letters, or -1
   * @param lastError the last failure, or {@code null}
   * @param lastErrorAt when, or {@code null}
   * @param checkedAt when the snapshot was taken
   */
  public OutboxHealth(
      boolean running,
      DeliveryMode deliveryMode,
      String instanceId,
      long pending,
      Duration lag,
      long deadLetters,
      String lastError,
      Instant lastErrorAt,
      Instant checkedAt) {
    this(
        running,
        deliveryMode,
        instanceId,
        pending,
        lag,
        deadLetters,
        lastError,
        lastErrorAt,
        checkedAt,
        null,
        null,
        OutboxOptions.DEFAULT_BROKER_OUTAGE_TOLERANCE);
  }

  /**
   * Whether it runs, its store could be read, and its broker has not been unavailable for longer
   * than the tolerance.
   *
   * @return {@code true} when healthy
   */
  public boolean isHealthy() {
    return running && pending >= 0 && !isBrokerOutageTooLong();
  }

  /**
   * How long the broker has been unavailable.
   *
   * @return zero while it takes messages
   */
  public Duration brokerOutage() {
    if (brokerUnavailableSince == null || !brokerUnavailableSince.isBefore(checkedAt)) {
      return Duration.ZERO;
    }
    return Duration.between(brokerUnavailableSince, checkedAt);
  }

  /**
   * Whether the broker has been unavailable for longer than {@link #brokerOutageTolerance()}.
   *
   * @return {@code true} when the outage makes the outbox unhealthy
   */
  public boolean isBrokerOutageTooLong() {
    return brokerUnavailableSince != null && brokerOutage().compareTo(brokerOutageTolerance) >= 0;
  }
}
