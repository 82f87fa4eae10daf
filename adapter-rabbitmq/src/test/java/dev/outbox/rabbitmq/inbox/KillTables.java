package dev.outbox.rabbitmq.inbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The tables of one run of {@link dev.outbox.rabbitmq.RabbitMqInboxKillIT}, all in a PostgreSQL
 * schema of the run's own (dropped with everything in it afterwards): the outbox's (created by the
 * outbox), the inbox's (created by the inbox), and the consumer's own two, created here:
 *
 * <ul>
 *   <li>{@link #effects()}: one row per aggregate, {@code applied_count} incremented and {@code
 *       last_seq} set by every message the handler applies;
 *   <li>{@link #appliedLog()}: one row per applied message, {@code log_id} in insertion order,
 *       {@code applied_at} on the database clock, the consumer instance that applied it and whether
 *       the broker flagged the delivery as redelivered.
 * </ul>
 *
 * <p>The consumer JVMs get the schema name as an argument and derive the table names from it.
 *
 * @param schema the schema, a plain lower-case identifier
 */
public record KillTables(String schema) {

  /** The test's PostgreSQL: database {@code test}, user {@code postgres}, trust auth. */
  public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

  /** The PostgreSQL user. */
  public static final String USER = "postgres";

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,40}");

  /** Checks that the schema is a plain identifier, since it goes into SQL text. */
  public KillTables {
    if (schema == null || !IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          "schema must be a plain lower-case SQL identifier, but was " + schema);
    }
  }

  /**
   * A pool on the test database, as an application has one.
   *
   * @param name the pool's name, also PostgreSQL's application name
   * @param size the most connections it holds
   * @return the pool
   */
  public static HikariDataSource pool(String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setUsername(USER);
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(10_000);
    config.addDataSourceProperty("ApplicationName", name);
    config.addDataSourceProperty("connectTimeout", "5");
    return new HikariDataSource(config);
  }

  /** The outbox's message table. */
  public String outboxTable() {
    return schema + ".outbox_messages";
  }

  /** The outbox's dead-letter table. */
  public String deadLetterTable() {
    return schema + ".outbox_dead_letters";
  }

  /** The inbox's positions table. */
  public String positionsTable() {
    return schema + ".inbox_positions";
  }

  /** The inbox's table of received ids. */
  public String receivedIdsTable() {
    return schema + ".inbox_received_ids";
  }

  /** The consumer's effect: {@code (aggregate_id, applied_count, last_seq)}. */
  public String effects() {
    return schema + ".effects";
  }

  /**
   * The consumer's log: {@code (log_id, aggregate_id, seq, message_id, applied_at, consumer,
   * redelivered)}.
   */
  public String appliedLog() {
    return schema + ".applied_log";
  }

  /**
   * Creates the schema and the consumer's tables, with an effect row (0, 0) for every aggregate, so
   * that the handler only ever updates it.
   *
   * @param connection a connection in auto-commit mode
   * @param aggregateIds every aggregate the writers will write
   * @throws SQLException when the schema exists already or the database refuses
   */
  public void create(Connection connection, List<String> aggregateIds) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
      statement.execute(
          "CREATE TABLE "
              + effects()
              + " (aggregate_id varchar(255) PRIMARY KEY, applied_count bigint NOT NULL,"
              + " last_seq bigint NOT NULL)");
      statement.execute(
          "CREATE TABLE "
              + appliedLog()
              + " (log_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
              + " aggregate_id varchar(255) NOT NULL, seq bigint NOT NULL,"
              + " message_id varchar(255) NOT NULL,"
              + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
              + " consumer varchar(100) NOT NULL, redelivered boolean NOT NULL)");
    }
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + effects()
                + " (aggregate_id, applied_count, last_seq) VALUES (?, 0, 0)")) {
      for (String id : aggregateIds) {
        insert.setString(1, id);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /**
   * Drops the schema and every table in it.
   *
   * @param connection a connection in auto-commit mode
   * @throws SQLException when the database refuses
   */
  public void drop(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }
}
