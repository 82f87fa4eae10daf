package dev.outbox.hibernate.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.OutboxStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Reads the counts of {@link dev.outbox.spi.OutboxStore#stats()}: pending rows and the oldest of
 * them through the pending index, and the dead letters.
 */
final class StatsQuery {

  private final Database database;
  private final String pending;
  private final String oldest;
  private final String deadLetters;

  StatsQuery(Database database, OutboxOptions options) {
    this.database = database;
    String table = options.outboxTable();
    this.pending = "SELECT COUNT(*) FROM " + table + " WHERE status = 'PENDING'";
    this.oldest =
        "SELECT created_at FROM " + table + " WHERE status = 'PENDING' ORDER BY position LIMIT 1";
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
