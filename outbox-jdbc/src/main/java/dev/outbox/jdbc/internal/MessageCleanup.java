package dev.outbox.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * The cleanup statements: delivered messages by age and the heads left with nothing (polling mode),
 * or every message by age (CDC mode, where the database's log has carried them). Each database
 * bounds a delete its own way ({@link Dialect#cleanup()}).
 */
final class MessageCleanup {

  private final Dialect dialect;

  MessageCleanup(Dialect dialect) {
    this.dialect = dialect;
  }

  /** The statement deleting delivered messages, for query plans: created before, limit. */
  String deliveredSql() {
    return dialect.cleanup().delivered();
  }

  int deleteDelivered(Connection connection, Instant createdBefore, int limit) throws SQLException {
    return delete(connection, dialect.cleanup().delivered(), createdBefore, limit);
  }

  /**
   * Deletes messages written before the cutoff whatever their head's cursor. Heads stay: they hold
   * the aggregates' last seq, which the next message continues.
   */
  int deleteWritten(Connection connection, Instant createdBefore, int limit) throws SQLException {
    return delete(connection, dialect.cleanup().written(), createdBefore, limit);
  }

  int deleteIdleHeads(Connection connection, int limit) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(dialect.cleanup().idleHeads())) {
      statement.setInt(1, limit);
      return statement.executeUpdate();
    }
  }

  private int delete(Connection connection, String sql, Instant createdBefore, int limit)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      dialect.bindInstant(statement, 1, createdBefore);
      statement.setInt(2, limit);
      return statement.executeUpdate();
    }
  }
}
