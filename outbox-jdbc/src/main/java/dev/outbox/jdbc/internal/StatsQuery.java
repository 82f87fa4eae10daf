package dev.outbox.jdbc.internal;

import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the counts of {@link OutboxStore#stats()} from the heads: the messages behind the cursors,
 * the oldest of them (one index probe per pending head), and the dead letters; and those of {@link
 * OutboxStore#aggregateCounts()}, which read every head.
 */
final class StatsQuery {

  private final Dialect dialect;
  private final String pending;
  private final String oldest;
  private final String deadLetters;
  private final String aggregates;
  private final String leases;

  StatsQuery(Dialect dialect) {
    this.dialect = dialect;
    this.pending =
        dialect.sql(
            """
            SELECT COALESCE(SUM(write_seq - delivered_seq), 0) FROM {heads}
            WHERE write_seq > delivered_seq
            """);
    this.oldest =
        dialect.sql(
            """
            SELECT MIN(m.created_at) AS created_at FROM {heads} h JOIN {outbox} m
              ON m.aggregate_type = h.aggregate_type AND m.aggregate_id = h.aggregate_id
              AND m.seq = h.delivered_seq + 1
            WHERE h.write_seq > h.delivered_seq
            """);
    this.deadLetters = dialect.sql("SELECT COUNT(*) FROM {dead_letters}");
    this.aggregates =
        dialect.sql(
            """
            SELECT COALESCE(SUM(CASE WHEN held OR attempts = 0 THEN 0 ELSE 1 END), 0),
              COALESCE(SUM(CASE WHEN held THEN 1 ELSE 0 END), 0),
              COALESCE(SUM(CASE WHEN NOT held AND last_error LIKE ? THEN 1 ELSE 0 END), 0)
            FROM {heads}
            WHERE held OR ((attempts > 0 OR last_error LIKE ?) AND claimed_by IS NULL
              AND write_seq > delivered_seq)
            """);
    this.leases =
        dialect.sql(
            """
            SELECT claimed_by, COUNT(*) FROM {heads}
            WHERE claimed_by IS NOT NULL AND available_at > {now}
            GROUP BY claimed_by
            """);
  }

  /** Every statement, for checks. */
  List<String> statements() {
    return List.of(pending, oldest, deadLetters, aggregates, leases);
  }

  /** The aggregates retrying, held and leased, for {@link OutboxStore#aggregateCounts()}. */
  AggregateCounts aggregates(Connection connection) throws SQLException {
    dialect.prepareShortQueries(connection);
    long retrying;
    long held;
    long waitingForBroker;
    try (PreparedStatement statement = connection.prepareStatement(aggregates)) {
      String brokerError = AggregateCounts.BROKER_UNAVAILABLE + "%";
      statement.setString(1, brokerError);
      statement.setString(2, brokerError);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        retrying = rows.getLong(1);
        held = rows.getLong(2);
        waitingForBroker = rows.getLong(3);
      }
    }
    Map<String, Long> byInstance = new HashMap<>();
    try (PreparedStatement statement = connection.prepareStatement(leases);
        ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        byInstance.put(rows.getString(1), rows.getLong(2));
      }
    }
    return new AggregateCounts(retrying, held, byInstance, waitingForBroker);
  }

  OutboxStats read(Connection connection) throws SQLException {
    dialect.prepareShortQueries(connection);
    long pendingCount = count(connection, pending);
    Instant oldestCreatedAt = null;
    if (pendingCount > 0) {
      try (PreparedStatement statement = connection.prepareStatement(oldest);
          ResultSet rows = statement.executeQuery()) {
        if (rows.next()) {
          oldestCreatedAt = dialect.readInstant(rows, "created_at");
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
