package dev.outbox.hibernate.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

/** Reads {@link OutboxMessage}s from result sets that select {@link #COLUMNS}. */
final class MessageRows {

  /** The message columns, shared by the outbox and the dead-letter table. */
  static final String COLUMNS =
      "id, seq, aggregate_type, aggregate_id, event_type, content_type, payload, headers,"
          + " occurred_at, created_at";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};

  private final Database database;

  MessageRows(Database database) {
    this.database = database;
  }

  /**
   * The message of the current row.
   *
   * @param attempts its failed attempts (kept on the head, or in the dead-letter row)
   */
  OutboxMessage read(ResultSet rows, int attempts) throws SQLException {
    return new OutboxMessage(
        database.readId(rows, "id"),
        rows.getLong("seq"),
        rows.getString("aggregate_type"),
        rows.getString("aggregate_id"),
        rows.getString("event_type"),
        rows.getString("content_type"),
        rows.getString("payload"),
        headers(rows.getString("headers")),
        database.readInstant(rows, "occurred_at"),
        database.readInstant(rows, "created_at"),
        attempts);
  }

  private static Map<String, String> headers(String json) throws SQLException {
    if (json == null || json.equals("{}")) {
      return Map.of();
    }
    try {
      return JSON.readValue(json, HEADERS);
    } catch (JsonProcessingException e) {
      throw new SQLException("Unreadable headers column: " + e.getOriginalMessage(), e);
    }
  }
}
