package dev.outbox.kafka;

import dev.outbox.inbox.InboxHandler;
import dev.outbox.inbox.InboxOptions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The MariaDB tables of one test run, named with a random suffix and dropped by {@link #close()}:
 * the inbox's positions and received ids, and the handler's effects: a counter row per aggregate
 * and a log of every seq applied, in the order applied (an auto-increment id), with the consumer
 * that applied it.
 */
final class InboxEffectTables implements AutoCloseable {

  private final DataSource dataSource;
  private final String counters;
  private final String log;
  private final String positions;
  private final String receivedIds;

  private InboxEffectTables(DataSource dataSource, String prefix) {
    this.dataSource = dataSource;
    this.counters = prefix + "_counters";
    this.log = prefix + "_applied_log";
    this.positions = prefix + "_positions";
    this.receivedIds = prefix + "_received_ids";
  }

  /**
   * Creates the effect tables, with a counter at 0 for each aggregate; the inbox creates its own.
   *
   * @param dataSource the MariaDB
   * @param aggregateIds the aggregates
   * @return the tables
   * @throws SQLException from the database
   */
  static InboxEffectTables create(DataSource dataSource, List<String> aggregateIds)
      throws SQLException {
    byte[] suffix = new byte[4];
    new SecureRandom().nextBytes(suffix);
    InboxEffectTables tables =
        new InboxEffectTables(dataSource, "kafka_inbox_" + HexFormat.of().formatHex(suffix));
    tables.execute(
        "CREATE TABLE "
            + tables.counters
            + " (aggregate_id VARCHAR(255) PRIMARY KEY, applied BIGINT NOT NULL) ENGINE=InnoDB",
        "CREATE TABLE "
            + tables.log
            + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, aggregate_id VARCHAR(255) NOT NULL,"
            + " seq BIGINT NOT NULL, consumer VARCHAR(16) NOT NULL) ENGINE=InnoDB");
    try (Connection connection = dataSource.getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO " + tables.counters + " (aggregate_id, applied) VALUES (?, 0)")) {
      for (String id : aggregateIds) {
        insert.setString(1, id);
        insert.addBatch();
      }
      insert.executeBatch();
    }
    return tables;
  }

  /**
   * The inbox's options on this run's tables, created by the inbox.
   *
   * @param source the consumer's name
   * @return the options
   */
  InboxOptions inboxOptions(String source) {
    return InboxOptions.builder()
        .source(source)
        .positionsTable(positions)
        .receivedIdsTable(receivedIds)
        .createSchema(true)
        .build();
  }

  /**
   * The handler of one consumer: increments its aggregate's counter and appends its seq to the log,
   * on the inbox's connection.
   *
   * @param consumer the consumer's name, logged with each seq
   * @return the handler
   */
  InboxHandler handler(String consumer) {
    String increment = "UPDATE " + counters + " SET applied = applied + 1 WHERE aggregate_id = ?";
    String append = "INSERT INTO " + log + " (aggregate_id, seq, consumer) VALUES (?, ?, ?)";
    return (connection, message) -> {
      try (PreparedStatement update = connection.prepareStatement(increment)) {
        update.setString(1, message.aggregateId());
        if (update.executeUpdate() != 1) {
          throw new IllegalStateException("No counter row for " + message.aggregateId());
        }
      }
      try (PreparedStatement insert = connection.prepareStatement(append)) {
        insert.setString(1, message.aggregateId());
        insert.setLong(2, message.seq());
        insert.setString(3, consumer);
        insert.executeUpdate();
      }
    };
  }

  /**
   * Each aggregate's counter.
   *
   * @return counters by aggregate id
   * @throws SQLException from the database
   */
  Map<String, Long> counters() throws SQLException {
    Map<String, Long> values = new TreeMap<>();
    query(
        "SELECT aggregate_id, applied FROM " + counters,
        row -> values.put(row.getString(1), row.getLong(2)));
    return values;
  }

  /**
   * The seqs applied per aggregate, in the order they were applied.
   *
   * @return seqs by aggregate id
   * @throws SQLException from the database
   */
  Map<String, List<Long>> appliedSeqs() throws SQLException {
    Map<String, List<Long>> seqs = new TreeMap<>();
    query(
        "SELECT aggregate_id, seq FROM " + log + " ORDER BY id",
        row -> seqs.computeIfAbsent(row.getString(1), id -> new ArrayList<>()).add(row.getLong(2)));
    return seqs;
  }

  /**
   * How many messages each consumer applied, from the log.
   *
   * @return counts by consumer name
   * @throws SQLException from the database
   */
  Map<String, Long> appliedByConsumer() throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    query(
        "SELECT consumer, COUNT(*) FROM " + log + " GROUP BY consumer ORDER BY consumer",
        row -> counts.put(row.getString(1), row.getLong(2)));
    return counts;
  }

  /** Drops the four tables. */
  @Override
  public void close() throws SQLException {
    execute(
        "DROP TABLE IF EXISTS " + counters,
        "DROP TABLE IF EXISTS " + log,
        "DROP TABLE IF EXISTS " + positions,
        "DROP TABLE IF EXISTS " + receivedIds);
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private interface RowReader {
    void read(ResultSet row) throws SQLException;
  }

  private void query(String sql, RowReader reader) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        reader.read(rows);
      }
    }
  }
}
