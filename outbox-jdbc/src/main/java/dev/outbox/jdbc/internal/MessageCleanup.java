package dev.outbox.jdbc.internal;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/**
 * The cleanup statements: delivered messages by age and the heads left with nothing (polling mode),
 * or every message by age (CDC mode, where the database's log has carried them).
 */
final class MessageCleanup {

  private final Database database;
  private final String delivered;
  private final String written;
  private final String idleHeads;

  MessageCleanup(Database database, OutboxOptions options) {
    this.database = database;
    String messages = options.outboxTable();
    String heads = options.headTable();
    String deliveredCondition =
        " created_at < ? AND seq <= (SELECT h.delivered_seq FROM "
            + heads
            + " h WHERE h.aggregate_type = "
            + messages
            + ".aggregate_type AND h.aggregate_id = "
            + messages
            + ".aggregate_id)";
    this.delivered =
        switch (database) {
          // ARRAY(...) runs the limited subquery once, then deletes through the primary key.
          case POSTGRESQL ->
              "DELETE FROM "
                  + messages
                  + " WHERE id = ANY(ARRAY(SELECT m.id FROM "
                  + messages
                  + " m JOIN "
                  + heads
                  + " h ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id"
                  + " WHERE m.created_at < ? AND m.seq <= h.delivered_seq"
                  + " ORDER BY m.created_at LIMIT ?))";
          case MARIADB ->
              "DELETE FROM "
                  + messages
                  + " WHERE"
                  + deliveredCondition
                  + " ORDER BY created_at LIMIT ?";
          case H2 ->
              "DELETE FROM "
                  + messages
                  + " WHERE"
                  + deliveredCondition
                  + " FETCH FIRST ? ROWS ONLY";
        };
    this.written =
        switch (database) {
          case POSTGRESQL ->
              "DELETE FROM "
                  + messages
                  + " WHERE id = ANY(ARRAY(SELECT id FROM "
                  + messages
                  + " WHERE created_at < ? ORDER BY created_at LIMIT ?))";
          case MARIADB ->
              "DELETE FROM " + messages + " WHERE created_at < ? ORDER BY created_at LIMIT ?";
          case H2 -> "DELETE FROM " + messages + " WHERE created_at < ? FETCH FIRST ? ROWS ONLY";
        };
    String idle =
        " WHERE write_seq = delivered_seq AND NOT held AND claimed_by IS NULL AND NOT EXISTS"
            + " (SELECT 1 FROM "
            + messages
            + " m WHERE m.aggregate_type = "
            + heads
            + ".aggregate_type AND m.aggregate_id = "
            + heads
            + ".aggregate_id)";
    this.idleHeads =
        switch (database) {
          case POSTGRESQL ->
              "DELETE FROM "
                  + heads
                  + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM "
                  + heads
                  + idle
                  + " LIMIT ?))";
          case MARIADB -> "DELETE FROM " + heads + idle + " LIMIT ?";
          case H2 -> "DELETE FROM " + heads + idle + " FETCH FIRST ? ROWS ONLY";
        };
  }

  /** The statement deleting delivered messages, for query plans: created before, limit. */
  String deliveredSql() {
    return delivered;
  }

  int deleteDelivered(Connection connection, Instant createdBefore, int limit) throws SQLException {
    return delete(connection, delivered, createdBefore, limit);
  }

  /**
   * Deletes messages written before the cutoff whatever their head's cursor. Heads stay: they hold
   * the aggregates' last seq, which the next message continues.
   */
  int deleteWritten(Connection connection, Instant createdBefore, int limit) throws SQLException {
    return delete(connection, written, createdBefore, limit);
  }

  int deleteIdleHeads(Connection connection, int limit) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(idleHeads)) {
      statement.setInt(1, limit);
      return statement.executeUpdate();
    }
  }

  private int delete(Connection connection, String sql, Instant createdBefore, int limit)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      database.bindInstant(statement, 1, createdBefore);
      statement.setInt(2, limit);
      return statement.executeUpdate();
    }
  }
}
