package dev.outbox.internal;

import dev.outbox.DeliveryMode;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes delivered messages written longer ago than the retention, and the heads left with
 * nothing, one bounded batch at a time. In {@link DeliveryMode#CDC} it deletes every message
 * written longer ago, delivered or not as far as the outbox knows: the connector read it from the
 * log long before.
 */
final class Cleanup {

  private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);
  private static final int MAX_ROUNDS = 1_000;

  private final OutboxOptions options;
  private final OutboxStore store;
  private final Clock clock;

  Cleanup(OutboxOptions options, OutboxStore store, Clock clock) {
    this.options = options;
    this.store = store;
    this.clock = clock;
  }

  /**
   * Deletes batches until one comes back short, the outbox stops, or {@value #MAX_ROUNDS} rounds
   * ran (the next run goes on).
   *
   * @return how many rows were deleted
   */
  int run(BooleanSupplier keepGoing) {
    Instant cutoff = clock.instant().minus(options.retention());
    int total = 0;
    for (int round = 0; round < MAX_ROUNDS && keepGoing.getAsBoolean(); round++) {
      int deleted =
          options.deliveryMode() == DeliveryMode.CDC
              ? store.deleteWritten(cutoff, options.cleanupBatchSize())
              : store.deleteDelivered(cutoff, options.cleanupBatchSize());
      total += deleted;
      if (deleted < options.cleanupBatchSize()) {
        break;
      }
    }
    if (total > 0) {
      LOG.debug("Cleanup deleted {} messages written before {}", total, cutoff);
    }
    return total;
  }
}
