package dev.outbox.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL: a flush's head upsert and its message insert in one statement, one round trip. The
 * upsert is a data-modifying CTE whose {@code RETURNING} gives each head's new {@code write_seq};
 * the insert takes each row's seq from it ({@code write_seq} minus how many of the flush's rows of
 * that aggregate come after it), and the statement returns the heads.
 */
final class PostgresFlushStatement {

  private static final String ROW =
      "(?::uuid, ?::varchar, ?::varchar, ?::bigint, ?::varchar, ?::varchar, ?::text, ?::text,"
          + " ?::timestamptz, ?::timestamptz)";

  private final HeadUpsert heads;
  private final OutboxRowWriter rows;
  private final String table;

  PostgresFlushStatement(HeadUpsert heads, OutboxRowWriter rows, String table) {
    this.heads = heads;
    this.rows = rows;
    this.table = table;
  }

  /**
   * Writes the heads and the rows.
   *
   * @param rowsFromEnd the flush's rows, each with, in place of its seq, how many rows of its
   *     aggregate follow it in the flush
   */
  Map<String, HeadUpsert.Written> write(
      Connection connection,
      List<HeadUpsert.Part> parts,
      List<OutboxRow> rowsFromEnd,
      String claimer,
      Duration lease)
      throws SQLException {
    String sql =
        "WITH h AS ("
            + heads.upsertSql(parts.size())
            + "), v ("
            + OutboxRowWriter.COLUMNS
            + ") AS (VALUES "
            + ROW
            + (", " + ROW).repeat(rowsFromEnd.size() - 1)
            + "), m AS (INSERT INTO "
            + table
            + " ("
            + OutboxRowWriter.COLUMNS
            + ") SELECT v.id, v.aggregate_type, v.aggregate_id, h.write_seq - v.seq, v.event_type,"
            + " v.content_type, v.payload, v.headers, v.occurred_at, v.created_at FROM v JOIN h"
            + " ON h.aggregate_type = v.aggregate_type AND h.aggregate_id = v.aggregate_id"
            + " ORDER BY v.aggregate_type, v.aggregate_id, v.seq DESC) SELECT "
            + HeadUpsert.RETURNED
            + " FROM h";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = heads.bind(statement, 1, parts, claimer, lease);
      rows.bind(statement, index, rowsFromEnd);
      try (ResultSet result = statement.executeQuery()) {
        return HeadUpsert.read(result, parts, claimer);
      }
    }
  }
}
