package dev.outbox.jdbc.internal;

import dev.outbox.DeliveryMode;
import dev.outbox.OutboxException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.UUID;

/** The databases the outbox supports, and how each stores ids and instants. */
public enum Database {
  /** PostgreSQL: native uuid and timestamptz; id lists as one uuid[] parameter. */
  POSTGRESQL("postgresql") {
    // statement_timestamp(), not now(): a business transaction may have begun long before its
    // flush. Not clock_timestamp() either: it is volatile, and the claim's "due_at <= now" could
    // not bound its index scan.
    @Override
    String now() {
      return "statement_timestamp()";
    }

    @Override
    String nowPlus() {
      return "(statement_timestamp() + make_interval(secs => ?))";
    }

    @Override
    void bindDuration(PreparedStatement statement, int index, Duration duration)
        throws SQLException {
      statement.setDouble(index, duration.toNanos() / 1e9);
    }

    @Override
    String idIn(String column, int count) {
      return column + " = ANY(?)";
    }

    @Override
    int bindIds(PreparedStatement statement, int index, Collection<UUID> ids) throws SQLException {
      statement.setArray(
          index, statement.getConnection().createArrayOf("uuid", ids.toArray(new UUID[0])));
      return index + 1;
    }
  },
  /** MariaDB and MySQL: ids as CHAR(36), instants as DATETIME(6) in UTC. */
  MARIADB("mariadb") {
    @Override
    String now() {
      return "UTC_TIMESTAMP(6)";
    }

    @Override
    String nowPlus() {
      return "(UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)";
    }

    @Override
    void bindId(PreparedStatement statement, int index, UUID id) throws SQLException {
      statement.setString(index, id.toString());
    }

    @Override
    UUID readId(ResultSet rows, String column) throws SQLException {
      return UUID.fromString(rows.getString(column));
    }

    @Override
    void bindInstant(PreparedStatement statement, int index, Instant instant) throws SQLException {
      statement.setObject(
          index, instant == null ? null : LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
    }

    @Override
    Instant readInstant(ResultSet rows, String column) throws SQLException {
      LocalDateTime value = rows.getObject(column, LocalDateTime.class);
      return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }
  },
  /** H2 2.x: native UUID and TIMESTAMP WITH TIME ZONE. */
  H2("h2");

  private final String folder;

  Database(String folder) {
    this.folder = folder;
  }

  /**
   * The database a JDBC driver reports.
   *
   * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
   * @return the database
   * @throws OutboxException for a database the outbox does not support
   */
  public static Database ofProductName(String productName) {
    String name = productName == null ? "" : productName.toLowerCase(java.util.Locale.ROOT);
    if (name.contains("postgresql")) {
      return POSTGRESQL;
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return MARIADB;
    }
    if (name.equals("h2")) {
      return H2;
    }
    throw new OutboxException(
        "The outbox supports PostgreSQL, MariaDB/MySQL and H2, but the database is " + productName);
  }

  /**
   * Checks that this database can run the delivery mode: {@link DeliveryMode#CDC} needs PostgreSQL,
   * whose logical replication Debezium's PostgreSQL connector reads.
   *
   * @param mode the mode of the options
   * @throws OutboxException naming the database and what is supported
   */
  public void checkSupports(DeliveryMode mode) {
    if (mode == DeliveryMode.CDC && this != POSTGRESQL) {
      throw new OutboxException(
          "deliveryMode CDC is supported on PostgreSQL only (Debezium's PostgreSQL connector reads"
              + " the outbox table from its logical replication log with pgoutput), but this"
              + " outbox's database is "
              + (this == MARIADB ? "MariaDB/MySQL" : "H2")
              + ". Use DeliveryMode.POLLING (the default) here.");
    }
  }

  /**
   * The database clock, read when the statement starts (not when the transaction began, on the
   * databases that tell the two apart), one value for the whole statement: leases and retry times
   * are on this clock, so the machines' clocks do not have to agree.
   */
  String now() {
    return "CURRENT_TIMESTAMP";
  }

  /** {@link #now()} plus one duration parameter, bound with {@link #bindDuration}. */
  String nowPlus() {
    return "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
  }

  /** Binds the parameter of {@link #nowPlus()}. */
  void bindDuration(PreparedStatement statement, int index, Duration duration) throws SQLException {
    statement.setLong(index, duration.toNanos() / 1_000);
  }

  /**
   * Where the migration file of this database lives on the classpath.
   *
   * @return the resource path of {@code V1__outbox_tables.sql}
   */
  public String migrationResource() {
    return "db/outbox/" + folder + "/V1__outbox_tables.sql";
  }

  void bindId(PreparedStatement statement, int index, UUID id) throws SQLException {
    statement.setObject(index, id);
  }

  /**
   * A condition that a column holds one of {@code count} ids, bound with {@link #bindIds}. On
   * PostgreSQL one array parameter, so that every batch size shares one prepared statement.
   */
  String idIn(String column, int count) {
    return column + " IN (?" + ", ?".repeat(count - 1) + ")";
  }

  /**
   * Binds the ids of an {@link #idIn} condition.
   *
   * @return the index of the next parameter
   */
  int bindIds(PreparedStatement statement, int index, Collection<UUID> ids) throws SQLException {
    int next = index;
    for (UUID id : ids) {
      bindId(statement, next++, id);
    }
    return next;
  }

  UUID readId(ResultSet rows, String column) throws SQLException {
    return rows.getObject(column, UUID.class);
  }

  void bindInstant(PreparedStatement statement, int index, Instant instant) throws SQLException {
    statement.setObject(index, instant == null ? null : instant.atOffset(ZoneOffset.UTC));
  }

  Instant readInstant(ResultSet rows, String column) throws SQLException {
    OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  /**
   * Prepares a transaction for a query whose estimated cost is far above what it does (the stats'
   * sum over the pending heads): on PostgreSQL it turns JIT compilation off for the transaction,
   * which would otherwise compile such a query every time (measured in version 1: about 450 ms for
   * a query that runs in 3 ms). Needs PostgreSQL 11 or newer.
   */
  void prepareShortQueries(Connection connection) throws SQLException {
    if (this == POSTGRESQL) {
      try (Statement statement = connection.createStatement()) {
        statement.execute("SET LOCAL jit = off");
      }
    }
  }
}
