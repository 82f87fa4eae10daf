package dev.outbox.jdbc.testing;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reads and resets an outbox table and its head table over plain JDBC, outside any Hibernate
 * session.
 */
public final class OutboxTable {

  /**
   * One message as the tests look at it.
   *
   * @param status {@code PUBLISHED} when at or before its head's cursor, else {@code PENDING}
   * @param attempts the head's failed attempts when it is the next message, else 0
   */
  public record Row(
      String id,
      long position,
      long seq,
      String aggregateType,
      String aggregateId,
      String eventType,
      String contentType,
      String payload,
      String headers,
      String status,
      int attempts) {}

  /** One head as the tests look at it. */
  public record Head(
      String aggregateType,
      String aggregateId,
      long writeSeq,
      long deliveredSeq,
      String claimedBy,
      long leaseToken,
      int attempts,
      String lastError,
      boolean held) {}

  private final DataSource dataSource;
  private final String table;
  private final String heads;

  public OutboxTable(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = table;
    this.heads = headTable(table);
  }

  /** The head table the outbox derives from an outbox table's name. */
  public static String headTable(String table) {
    return OutboxOptions.builder().outboxTable(table).build().headTable();
  }

  /** Every message, in insert order. */
  public List<Row> rows() {
    try (Connection connection = dataSource.getConnection()) {
      return rows(connection, table);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every message of an outbox table, in insert order, read on the given connection. */
  public static List<Row> rows(Connection connection, String table) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement statement =
            connection.prepareStatement(
                "SELECT m.id, m.position, m.seq, m.aggregate_type, m.aggregate_id, m.event_type,"
                    + " m.content_type, m.payload, m.headers,"
                    + " CASE WHEN m.seq <= h.delivered_seq THEN 'PUBLISHED' ELSE 'PENDING' END,"
                    + " CASE WHEN m.seq = h.delivered_seq + 1 THEN h.attempts ELSE 0 END FROM "
                    + table
                    + " m JOIN "
                    + headTable(table)
                    + " h ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id"
                    + " ORDER BY m.position");
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        rows.add(
            new Row(
                result.getString(1),
                result.getLong(2),
                result.getLong(3),
                result.getString(4),
                result.getString(5),
                result.getString(6),
                result.getString(7),
                result.getString(8),
                result.getString(9),
                result.getString(10),
                result.getInt(11)));
      }
    }
    return rows;
  }

  /** Every head, by key. */
  public List<Head> heads() {
    List<Head> found = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT aggregate_type, aggregate_id, write_seq, delivered_seq, claimed_by,"
                    + " lease_token, attempts, last_error, held FROM "
                    + heads
                    + " ORDER BY aggregate_type, aggregate_id");
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        found.add(
            new Head(
                result.getString(1),
                result.getString(2),
                result.getLong(3),
                result.getLong(4),
                result.getString(5),
                result.getLong(6),
                result.getInt(7),
                result.getString(8),
                result.getBoolean(9)));
      }
      return found;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The head of one aggregate. */
  public Head head(String aggregateType, String aggregateId) {
    return heads().stream()
        .filter(h -> h.aggregateType().equals(aggregateType) && h.aggregateId().equals(aggregateId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no head for " + aggregateType + '/' + aggregateId));
  }

  /** When the head's lease (or retry wait) ends, as the database stores it. */
  public Instant availableAt(String aggregateType, String aggregateId) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT available_at FROM "
                    + heads
                    + " WHERE aggregate_type = ? AND aggregate_id = ?")) {
      statement.setString(1, aggregateType);
      statement.setString(2, aggregateId);
      try (ResultSet result = statement.executeQuery()) {
        if (!result.next()) {
          throw new AssertionError("no head for " + aggregateType + '/' + aggregateId);
        }
        return result.getTimestamp(1).toInstant();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Drops outbox tables if they exist, with the published view and the head table derived from each
   * name.
   */
  public static void drop(DataSource dataSource, String... tables) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String table : tables) {
        OutboxOptions derived = OutboxOptions.builder().outboxTable(table).build();
        statement.execute("DROP VIEW IF EXISTS " + derived.publishedView());
        statement.execute("DROP TABLE IF EXISTS " + table);
        statement.execute("DROP TABLE IF EXISTS " + derived.headTable());
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletes every row of a plain table (the dead letters, say). */
  public static void deleteAll(DataSource dataSource, String table) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DELETE FROM " + table);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletes every message and every head. */
  public void clear() {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DELETE FROM " + table);
      statement.execute("DELETE FROM " + heads);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
