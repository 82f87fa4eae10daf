package dev.outbox.inbox.internal;

import dev.outbox.OutboxException;
import dev.outbox.inbox.InboxCleanup;
import dev.outbox.inbox.InboxOptions;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes idle positions and old received ids in bounded batches, each its own transaction; and
 * runs that on a daemon thread when started. A failing run is logged once when the failures start
 * and once when they end, with how long they lasted, and the next run goes on as planned.
 */
final class InboxCleaner {

  private static final Logger LOG = LoggerFactory.getLogger(InboxCleaner.class);

  /** How long {@link #close()} waits for a run in progress. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private final Connections connections;
  private final Positions positions;
  private final InboxOptions options;
  private ScheduledExecutorService scheduler;
  private boolean closed;
  private Instant failingSince;

  InboxCleaner(Connections connections, Positions positions, InboxOptions options) {
    this.connections = connections;
    this.positions = positions;
    this.options = options;
  }

  InboxCleanup cleanUp() {
    try {
      int idle = deleteAll(false, options.positionRetention());
      int ids = deleteAll(true, options.idRetention());
      if (idle + ids > 0) {
        LOG.debug(
            "Inbox '{}' cleanup deleted {} idle positions and {} received ids",
            options.source(),
            idle,
            ids);
      }
      return new InboxCleanup(idle, ids);
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + options.source()
              + "' could not clean up "
              + options.positionsTable()
              + " and "
              + options.receivedIdsTable()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  synchronized void start() {
    if (closed) {
      throw new IllegalStateException(
          "Inbox '" + options.source() + "' is closed: create a new one to start the cleanup");
    }
    if (scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "outbox-inbox-cleanup-" + options.source());
              thread.setDaemon(true);
              return thread;
            });
    long interval = options.cleanupInterval().toMillis();
    scheduler.scheduleWithFixedDelay(this::runOnce, interval, interval, TimeUnit.MILLISECONDS);
  }

  void close() {
    ScheduledExecutorService stopping;
    synchronized (this) {
      closed = true;
      stopping = scheduler;
      scheduler = null;
    }
    if (stopping == null) {
      return;
    }
    stopping.shutdown();
    try {
      if (!stopping.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        stopping.shutdownNow();
      }
    } catch (InterruptedException e) {
      stopping.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** One scheduled run: never throws, so the schedule goes on. */
  private void runOnce() {
    try {
      cleanUp();
      if (failingSince != null) {
        LOG.info(
            "Inbox '{}' cleanup works again after failing for {}",
            options.source(),
            Duration.between(failingSince, Instant.now()));
        failingSince = null;
      }
    } catch (RuntimeException e) {
      if (failingSince == null) {
        failingSince = Instant.now();
        LOG.warn(
            "Inbox '{}' cleanup failed, trying again every {}: {}",
            options.source(),
            options.cleanupInterval(),
            e.getMessage());
      }
      LOG.debug("The cleanup's failure", e);
    }
  }

  private int deleteAll(boolean ids, Duration age) throws SQLException {
    int batch = options.cleanupBatchSize();
    return connections.autoCommit(
        connection -> {
          int total = 0;
          int deleted;
          do {
            deleted = positions.deleteBatch(connection, ids, age, batch);
            total += deleted;
          } while (deleted == batch);
          return total;
        });
  }
}
