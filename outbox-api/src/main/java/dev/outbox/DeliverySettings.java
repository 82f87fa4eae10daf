package dev.outbox;

import static dev.outbox.OptionChecks.atMost;
import static dev.outbox.OptionChecks.between;
import static dev.outbox.OptionChecks.positive;

import java.time.Duration;

/**
 * How the processor takes and sends work: how often it polls, how much one claim takes, how long a
 * send and a lease may last, and whether order per aggregate and the fast path are on.
 */
record DeliverySettings(
    Duration pollInterval,
    int batchSize,
    Duration publishTimeout,
    Duration leaseDuration,
    boolean orderedPerAggregate,
    boolean leaseOnWrite) {

  static final DeliverySettings DEFAULTS =
      new DeliverySettings(
          OutboxOptions.DEFAULT_POLL_INTERVAL,
          OutboxOptions.DEFAULT_BATCH_SIZE,
          OutboxOptions.DEFAULT_PUBLISH_TIMEOUT,
          OutboxOptions.DEFAULT_LEASE_DURATION,
          true,
          true);

  DeliverySettings withPollInterval(Duration interval) {
    return new DeliverySettings(
        positive("pollInterval", interval),
        batchSize,
        publishTimeout,
        leaseDuration,
        orderedPerAggregate,
        leaseOnWrite);
  }

  DeliverySettings withBatchSize(int size) {
    return new DeliverySettings(
        pollInterval,
        between("batchSize", size, 1, OutboxOptions.MAX_BATCH_SIZE),
        publishTimeout,
        leaseDuration,
        orderedPerAggregate,
        leaseOnWrite);
  }

  DeliverySettings withPublishTimeout(Duration timeout) {
    Duration checked =
        atMost(
            "publishTimeout",
            positive("publishTimeout", timeout),
            Duration.ofMinutes(OutboxOptions.Builder.MAX_PUBLISH_TIMEOUT_MINUTES),
            "a broker that has not answered in that time is down; the batch is retried");
    return new DeliverySettings(
        pollInterval, batchSize, checked, leaseDuration, orderedPerAggregate, leaseOnWrite);
  }

  DeliverySettings withLeaseDuration(Duration lease) {
    Duration checked =
        atMost(
            "leaseDuration",
            positive("leaseDuration", lease),
            Duration.ofHours(OutboxOptions.Builder.MAX_LEASE_HOURS),
            "the aggregates of an instance that stopped without closing wait that long");
    return new DeliverySettings(
        pollInterval, batchSize, publishTimeout, checked, orderedPerAggregate, leaseOnWrite);
  }

  DeliverySettings withOrderedPerAggregate(boolean ordered) {
    return new DeliverySettings(
        pollInterval, batchSize, publishTimeout, leaseDuration, ordered, leaseOnWrite);
  }

  DeliverySettings withLeaseOnWrite(boolean enabled) {
    return new DeliverySettings(
        pollInterval, batchSize, publishTimeout, leaseDuration, orderedPerAggregate, enabled);
  }

  /** A live instance must never lose a claim it is still publishing. */
  void checkTogether() {
    if (leaseDuration.compareTo(publishTimeout) <= 0) {
      throw new IllegalArgumentException(
          "leaseDuration must be longer than publishTimeout ("
              + publishTimeout
              + "), but was "
              + leaseDuration
              + ": a claim would run out while its batch is still being published");
    }
  }
}
