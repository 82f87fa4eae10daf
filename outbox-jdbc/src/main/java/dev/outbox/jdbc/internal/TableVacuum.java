package dev.outbox.jdbc.internal;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL: vacuums the head table and the outbox table after every {@link
 * OutboxOptions#vacuumThreshold()} rows the store changed, and when a claim finds nothing to do
 * after at least a tenth of that, on a daemon thread of its own, one vacuum at a time.
 *
 * <p>Every write, grant and record updates a head and leaves a dead row version behind, and each
 * cleanup leaves deleted messages; their index entries stay until a vacuum removes them, and the
 * claim's index range walks past dead head versions. Autovacuum may be off, and on a large table
 * its cost limit throttles it far below the rate at which the outbox changes rows. A manual {@code
 * VACUUM} is not throttled and runs beside claims and writes without blocking them.
 *
 * <p>A vacuum that fails is logged and tried again after the next threshold's worth of changes. One
 * that PostgreSQL skips because the outbox's database user does not own the table is logged once,
 * and the table is left to autovacuum from then on.
 */
final class TableVacuum {

  private static final Logger LOG = LoggerFactory.getLogger(TableVacuum.class);

  private final DataSource connections;
  private final String table;
  private final long threshold;
  private final AtomicLong changed = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean givenUp;

  /**
   * A vacuum of PostgreSQL tables; it never runs when the threshold is 0.
   *
   * @param connections where its connections come from
   * @param table the tables, as {@code VACUUM} lists them
   * @param threshold how many changed rows start a vacuum
   */
  TableVacuum(DataSource connections, String table, long threshold) {
    this.connections = connections;
    this.table = table;
    this.threshold = threshold;
  }

  /** A vacuum that never runs: for the databases that need none. */
  static TableVacuum never() {
    return new TableVacuum(null, "", 0);
  }

  /**
   * Counts rows a committed transaction of the store changed, and starts a vacuum once they add up
   * to the threshold and none is running.
   *
   * @param rows how many rows changed
   * @return whether it started a vacuum
   */
  boolean changed(int rows) {
    if (threshold <= 0 || givenUp || rows <= 0) {
      return false;
    }
    return changed.addAndGet(rows) >= threshold && start();
  }

  /**
   * Starts a vacuum when a claim found nothing to do and at least a tenth of the threshold changed
   * since the last one: the rows of a burst that ended below the threshold would otherwise stay
   * dead in the pending indexes, for the next burst's claims to walk past.
   *
   * @return whether it started a vacuum
   */
  boolean idle() {
    if (threshold <= 0 || givenUp || changed.get() < Math.max(1, threshold / 10)) {
      return false;
    }
    return start();
  }

  private boolean start() {
    if (!running.compareAndSet(false, true)) {
      return false;
    }
    changed.set(0);
    Thread thread = new Thread(this::vacuumAndRelease, "outbox-vacuum");
    thread.setDaemon(true);
    thread.start();
    return true;
  }

  /** The innermost cause of a failure, as its class and message. */
  private static String rootCause(Throwable error) {
    Throwable root = error;
    for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 20; depth++) {
      root = root.getCause();
    }
    return root.toString();
  }

  private void vacuumAndRelease() {
    try {
      vacuum();
    } finally {
      running.set(false);
    }
  }

  /**
   * Vacuums the table now, on the calling thread.
   *
   * @return whether PostgreSQL vacuumed it
   */
  boolean vacuum() {
    long start = System.nanoTime();
    try {
      Connection connection = connections.getConnection();
      try {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(true); // VACUUM cannot run inside a transaction
        try (Statement statement = connection.createStatement()) {
          statement.execute("VACUUM " + table);
          SQLWarning warning = statement.getWarnings();
          if (warning != null) {
            givenUp = true;
            LOG.warn(
                "PostgreSQL did not vacuum the outbox table {} ({}); leaving it to autovacuum."
                    + " Let the outbox's database user own the table, or set"
                    + " OutboxOptions.vacuumThreshold(0)",
                table,
                warning.getMessage());
            return false;
          }
        } finally {
          connection.setAutoCommit(autoCommit);
        }
      } finally {
        connection.close();
      }
      LOG.debug("Vacuumed {} in {} ms", table, (System.nanoTime() - start) / 1_000_000);
      return true;
    } catch (SQLException | RuntimeException e) {
      // One line: while the database is down, the outbox logs that once; the stack is at debug.
      LOG.warn(
          "Vacuuming the outbox table {} failed ({}); trying again after {} more changed rows",
          table,
          rootCause(e),
          threshold);
      LOG.debug("Vacuuming the outbox table {} failed", table, e);
      return false;
    }
  }
}
