package dev.outbox;

import static dev.outbox.OptionChecks.between;
import static dev.outbox.OptionChecks.notNegative;
import static dev.outbox.OptionChecks.positive;

import java.time.Duration;

/**
 * How delivered rows go away and the tables stay lean: how long they are kept, how often and how
 * much cleanup deletes, and after how many changes PostgreSQL's head table is vacuumed.
 */
record CleanupSettings(
    Duration retention, Duration cleanupInterval, int cleanupBatchSize, int vacuumThreshold) {

  static final CleanupSettings DEFAULTS =
      new CleanupSettings(
          OutboxOptions.DEFAULT_RETENTION,
          OutboxOptions.DEFAULT_CLEANUP_INTERVAL,
          OutboxOptions.DEFAULT_CLEANUP_BATCH_SIZE,
          OutboxOptions.DEFAULT_VACUUM_THRESHOLD);

  CleanupSettings withRetention(Duration value) {
    return new CleanupSettings(
        notNegative("retention", value), cleanupInterval, cleanupBatchSize, vacuumThreshold);
  }

  CleanupSettings withCleanupInterval(Duration interval) {
    return new CleanupSettings(
        retention, positive("cleanupInterval", interval), cleanupBatchSize, vacuumThreshold);
  }

  CleanupSettings withCleanupBatchSize(int size) {
    return new CleanupSettings(
        retention,
        cleanupInterval,
        between("cleanupBatchSize", size, 1, 1_000_000),
        vacuumThreshold);
  }

  CleanupSettings withVacuumThreshold(int rows) {
    return new CleanupSettings(
        retention,
        cleanupInterval,
        cleanupBatchSize,
        between("vacuumThreshold", rows, 0, 1_000_000_000));
  }
}
