package dev.outbox.benchmarks.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The database's ceiling for a relay: a bare JDBC loop on a copy of the outbox table ({@code LIKE
 * ... INCLUDING ALL}: same columns, indexes, identity) that, in one transaction per batch, selects
 * the next 100 pending rows in position order {@code FOR UPDATE SKIP LOCKED} (every column, read
 * like the processor reads them), marks them published, and commits. One thread.
 */
public final class DbCeiling {

  private static final int BATCH = 100;

  private final BenchDatabase db;

  /**
   * Creates the ceiling's table.
   *
   * @param db the database
   */
  public DbCeiling(BenchDatabase db) {
    this.db = db;
    db.execute(
        "DROP TABLE IF EXISTS " + BenchDatabase.CEILING,
        "CREATE TABLE "
            + BenchDatabase.CEILING
            + " (LIKE "
            + BenchDatabase.OUTBOX
            + " INCLUDING ALL)");
    // LIKE copies columns and indexes but not storage parameters (fillfactor, autovacuum).
    String parameters =
        db.text(
            "SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE oid = '"
                + BenchDatabase.OUTBOX
                + "'::regclass");
    if (parameters != null && !parameters.isEmpty()) {
      db.execute("ALTER TABLE " + BenchDatabase.CEILING + " SET (" + parameters + ")");
    }
  }

  /**
   * Writes {@code rows} pending rows and marks them all published, batch by batch.
   *
   * @param rows how many
   * @param aggregates over how many aggregates
   * @return rows per second
   */
  public double run(int rows, int aggregates) {
    db.execute("TRUNCATE " + BenchDatabase.CEILING);
    Backlog.insert(db, BenchDatabase.CEILING, "bench-ceiling", rows, aggregates, false);
    String select =
        "SELECT id, position, aggregate_type, aggregate_id, event_type, content_type, payload,"
            + " headers, occurred_at, created_at, attempts FROM "
            + BenchDatabase.CEILING
            + " WHERE status = 'PENDING' ORDER BY position LIMIT "
            + BATCH
            + " FOR UPDATE SKIP LOCKED";
    String update =
        "UPDATE "
            + BenchDatabase.CEILING
            + " SET status = 'PUBLISHED', published_at = now() WHERE id = ANY (?)";
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement claim = connection.prepareStatement(select);
        PreparedStatement mark = connection.prepareStatement(update)) {
      connection.setAutoCommit(false);
      long start = System.nanoTime();
      long done = 0;
      int batch;
      do {
        batch = batch(connection, claim, mark);
        done += batch;
      } while (batch > 0);
      double seconds = (System.nanoTime() - start) / 1e9;
      if (done != rows) {
        throw new IllegalStateException("The ceiling loop marked " + done + " of " + rows);
      }
      return done / seconds;
    } catch (SQLException e) {
      throw new IllegalStateException("DB ceiling: " + e.getMessage(), e);
    }
  }

  private static int batch(Connection connection, PreparedStatement claim, PreparedStatement mark)
      throws SQLException {
    List<UUID> ids = new ArrayList<>(BATCH);
    long bytes = 0;
    try (ResultSet result = claim.executeQuery()) {
      while (result.next()) {
        ids.add(result.getObject(1, UUID.class));
        bytes += result.getLong(2) + result.getString(3).length() + result.getString(4).length();
        bytes += result.getString(5).length() + result.getString(6).length();
        bytes += result.getString(7).length() + result.getString(8).length();
        bytes += result.getTimestamp(9).getTime() + result.getTimestamp(10).getTime();
        bytes += result.getInt(11);
      }
    }
    if (ids.isEmpty()) {
      connection.commit();
      return 0;
    }
    Array array = connection.createArrayOf("uuid", ids.toArray());
    mark.setArray(1, array);
    mark.executeUpdate();
    connection.commit();
    return bytes == Long.MIN_VALUE ? -1 : ids.size();
  }
}
