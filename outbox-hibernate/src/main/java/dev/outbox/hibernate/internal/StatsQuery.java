package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.OutboxStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Reads the counts of {@link dev.outbox.spi.OutboxStore#stats()} from the heads: the messages
 * behind the cursors, the oldest of them (one index probe per pending head), and the dead letters.
 */
final class StatsQuery {

  private final Database database;
  private final String pending;
  private final String oldest;
  private final String deadLetters;

  StatsQuery(Database database, OutboxOptions options) {
    this.database = database;
    String heads = options.headTable();
    this.pending =
        "SELECT COALESCE(SUM(write_seq - delivered_seq), 0) FROM "
            + heads
            + " WHERE write_seq > delivered_seq";
    this.oldest =
        "SELECT MIN(m.created_at) AS created_at FROM "
            + heads
            + " h JOIN "
            + options.outboxTable()
            + " m ON m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id"
            + " AND m.seq = h.delivered_seq + 1 WHERE h.write_seq > h.delivered_seq";
    this.deadLetters = "SELECT COUNT(*) FROM " + options.deadLetterTable();
  }

  OutboxStats read(Connection connection) throws SQLException {
    database.prepareShortQueries(connection);
    long pendingCount = count(connection, pending);
    Instant oldestCreatedAt = null;
    if (pendingCount > 0) {
      try (PreparedStatement statement = connection.prepareStatement(oldest);
          ResultSet rows = statement.executeQuery()) {
        if (rows.next()) {
          oldestCreatedAt = database.readInstant(rows, "created_at");
        }
      }
    }
    return new OutboxStats(pendingCount, oldestCreatedAt, count(connection, deadLetters));
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
