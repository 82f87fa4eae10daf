package dev.outbox.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Inserts the rows of one flush on the session's connection, as one multi-row {@code INSERT} per up
 * to {@value #ROWS_PER_STATEMENT} rows. One statement executes far cheaper than a JDBC batch of
 * one-row statements (measured on PostgreSQL: 10 rows of 1 KB in 0.35-0.5 ms instead of 1.1 ms),
 * and the database drivers need no rewriting option for it.
 */
final class OutboxRowWriter {

  static final int ROWS_PER_STATEMENT = 100;
  private static final String ROW_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  /** The inserted columns, in the order {@link #bind} binds them. */
  static final String COLUMNS =
      "id, aggregate_type, aggregate_id, seq, event_type, content_type, payload, headers,"
          + " occurred_at, created_at, epoch";

  private final Dialect dialect;
  private final String insertPrefix;

  OutboxRowWriter(Dialect dialect) {
    this.dialect = dialect;
    this.insertPrefix = dialect.sql("INSERT INTO {outbox} (" + COLUMNS + ") VALUES") + " ";
  }

  void write(Connection connection, List<OutboxRow> rows) throws SQLException {
    for (int from = 0; from < rows.size(); from += ROWS_PER_STATEMENT) {
      List<OutboxRow> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_STATEMENT));
      try (PreparedStatement statement = connection.prepareStatement(sql(chunk.size()))) {
        bind(statement, 1, chunk);
        statement.executeUpdate();
      }
    }
  }

  /**
   * Binds the {@link #COLUMNS} of each row, row after row.
   *
   * @return the index of the next parameter
   */
  int bind(PreparedStatement statement, int index, List<OutboxRow> chunk) throws SQLException {
    for (OutboxRow row : chunk) {
      dialect.bindId(statement, index++, row.id());
      statement.setString(index++, row.aggregateType());
      statement.setString(index++, row.aggregateId());
      statement.setLong(index++, row.seq());
      statement.setString(index++, row.eventType());
      statement.setString(index++, row.contentType());
      statement.setString(index++, row.payload());
      statement.setString(index++, row.headersJson());
      dialect.bindInstant(statement, index++, row.occurredAt());
      dialect.bindInstant(statement, index++, row.createdAt());
      statement.setLong(index++, row.epoch());
    }
    return index;
  }

  /** The statement for {@code rows} rows. */
  private String sql(int rows) {
    return insertPrefix + ROW_VALUES + (", " + ROW_VALUES).repeat(rows - 1);
  }
}
