package dev.outbox.hibernate.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Reads and resets an outbox table over plain JDBC, outside any Hibernate session. */
public final class OutboxTable {

  /** One row as the tests look at it. */
  public record Row(
      String id,
      long position,
      String aggregateType,
      String aggregateId,
      String eventType,
      String contentType,
      String payload,
      String headers,
      String status,
      int attempts) {}

  private final DataSource dataSource;
  private final String table;

  public OutboxTable(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = table;
  }

  /** Every row, in position order. */
  public List<Row> rows() {
    try (Connection connection = dataSource.getConnection()) {
      return rows(connection, table);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every row of a table, in position order, read on the given connection. */
  public static List<Row> rows(Connection connection, String table) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement statement =
            connection.prepareStatement(
                "SELECT id, position, aggregate_type, aggregate_id, event_type, content_type,"
                    + " payload, headers, status, attempts FROM "
                    + table
                    + " ORDER BY position");
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        rows.add(
            new Row(
                result.getString(1),
                result.getLong(2),
                result.getString(3),
                result.getString(4),
                result.getString(5),
                result.getString(6),
                result.getString(7),
                result.getString(8),
                result.getString(9),
                result.getInt(10)));
      }
    }
    return rows;
  }

  /** Drops the table if it exists. */
  public static void drop(DataSource dataSource, String... tables) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String table : tables) {
        statement.execute("DROP TABLE IF EXISTS " + table);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletes every row. */
  public void clear() {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DELETE FROM " + table);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
