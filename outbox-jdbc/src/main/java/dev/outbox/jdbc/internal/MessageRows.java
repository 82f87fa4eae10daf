package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/** Reads {@link OutboxMessage}s from result sets that select {@link #COLUMNS}. */
final class MessageRows {

  /** The message columns, shared by the outbox and the dead-letter table. */
  static final String COLUMNS =
      "id, seq, aggregate_type, aggregate_id, event_type, content_type, payload, headers,"
          + " occurred_at, created_at, epoch";

  private final Dialect dialect;

  MessageRows(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * The message of the current row.
   *
   * @param attempts its failed attempts (kept on the head, or in the dead-letter row)
   * @param prevSeq the seq published before it, 0 if none
   */
  OutboxMessage read(ResultSet rows, int attempts, long prevSeq) throws SQLException {
    return new OutboxMessage(
        dialect.readId(rows, "id"),
        rows.getLong("seq"),
        rows.getString("aggregate_type"),
        rows.getString("aggregate_id"),
        rows.getString("event_type"),
        rows.getString("content_type"),
        rows.getString("payload"),
        headers(rows.getString("headers")),
        dialect.readInstant(rows, "occurred_at"),
        dialect.readInstant(rows, "created_at"),
        attempts,
        rows.getLong("epoch"),
        prevSeq);
  }

  private static Map<String, String> headers(String json) throws SQLException {
    try {
      return HeadersJson.read(json);
    } catch (IllegalArgumentException e) {
      throw new SQLException("Unreadable headers column: " + e.getMessage(), e);
    }
  }
}
