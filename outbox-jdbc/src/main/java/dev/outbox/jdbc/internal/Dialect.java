package dev.outbox.jdbc.internal;

import dev.outbox.DeliveryMode;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What differs between the databases the outbox supports: the statements that are not the same on
 * all of them (as text blocks, with the configured table names filled in), the database clock, how
 * ids and instants are bound and read, and the algorithms one database runs differently (the
 * one-round-trip flush and claim on PostgreSQL, H2's {@code MERGE} retry, the vacuum). One instance
 * per database and set of tables; the rest of the store asks it, never which database it is on.
 *
 * <p>Every statement of a dialect is made by {@link #sql(String)} from a template whose
 * placeholders name the tables ({@code {outbox}}, {@code {heads}}, {@code {dead_letters}}) and the
 * clock ({@code {now}} for {@link #now()}, {@code {now_plus}} for {@link #nowPlus()}).
 */
public abstract sealed class Dialect permits PostgresDialect, PortableDialect {

  /** The migration that added the streams' epoch and published seq. */
  private static final String MIGRATION_V2 = "V2__outbox_streams.sql";

  private final Tables tables;
  private final String selectHeads;

  /** The configured table names. */
  record Tables(String outbox, String heads, String deadLetters) {}

  Dialect(OutboxOptions options) {
    this.tables = new Tables(options.outboxTable(), options.headTable(), options.deadLetterTable());
    this.selectHeads = sql("SELECT " + HeadUpsert.RETURNED + " FROM {heads} WHERE ");
  }

  /**
   * The dialect of the database a JDBC driver reports: the one place that tells the databases
   * apart.
   *
   * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
   * @param options the table names
   * @return the dialect
   * @throws OutboxException for a database the outbox does not support
   */
  public static Dialect of(String productName, OutboxOptions options) {
    String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
    if (name.contains("postgresql")) {
      return new PostgresDialect(options);
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return new MariaDbDialect(options);
    }
    if (name.equals("h2")) {
      return new H2Dialect(options);
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
    if (mode == DeliveryMode.CDC) {
      throw new OutboxException(
          "deliveryMode CDC is supported on PostgreSQL only (Debezium's PostgreSQL connector reads"
              + " the outbox table from its logical replication log with pgoutput), but this"
              + " outbox's database is "
              + this
              + ". Use DeliveryMode.POLLING (the default) here.");
    }
  }

  /**
   * Where the migration file of this database lives on the classpath.
   *
   * @return the resource path of {@code V1__outbox_tables.sql}
   */
  public abstract String migrationResource();

  /**
   * Every migration file of this database, in the order they run: {@link #migrationResource()},
   * which creates the tables, then what was added to them since.
   *
   * @return the resource paths, first {@code V1__outbox_tables.sql}
   */
  public final List<String> migrationResources() {
    String first = migrationResource();
    return List.of(first, first.substring(0, first.lastIndexOf('/') + 1) + MIGRATION_V2);
  }

  /**
   * The migrations of this database as a sentence's words: its location and the file names, as in
   * {@code classpath:db/outbox/h2 (V1__outbox_tables.sql, V2__outbox_streams.sql)}.
   *
   * @return the words
   */
  public final String migrationWords() {
    String first = migrationResource();
    return "classpath:"
        + first.substring(0, first.lastIndexOf('/'))
        + " ("
        + String.join(
            ", ",
            migrationResources().stream()
                .map(resource -> resource.substring(resource.lastIndexOf('/') + 1))
                .toList())
        + ")";
  }

  /**
   * The database's name as users know it: {@code PostgreSQL}, {@code MariaDB/MySQL}, {@code H2}.
   */
  @Override
  public abstract String toString();

  /** The configured table names. */
  final Tables tables() {
    return tables;
  }

  /**
   * A statement from a template: its placeholders filled in, each run of white space (the lines of
   * a text block) made one space.
   *
   * @throws IllegalStateException when a placeholder is left
   */
  final String sql(String template) {
    String sql =
        template
            .replace("{outbox}", tables.outbox())
            .replace("{heads}", tables.heads())
            .replace("{dead_letters}", tables.deadLetters())
            .replace("{now_plus}", nowPlus())
            .replace("{now}", now())
            .strip()
            .replaceAll("\\s+", " ");
    if (sql.contains("{")) {
      throw new IllegalStateException("A placeholder is left in the statement: " + sql);
    }
    return sql;
  }

  /** Every statement this dialect holds, for checks: the multi-row ones with two rows. */
  final List<String> statements() {
    List<String> all = new ArrayList<>(writeStatements());
    all.addAll(cleanup().all());
    return all;
  }

  /** The statements of the write path, for checks: the multi-row ones with two rows. */
  abstract List<String> writeStatements();

  // ---- the clock --------------------------------------------------------------------------

  /**
   * The database clock, read when the statement starts (not when the transaction began, on the
   * databases that tell the two apart), one value for the whole statement: leases and retry times
   * are on this clock, so the machines' clocks do not have to agree.
   */
  abstract String now();

  /** {@link #now()} plus one duration parameter, bound with {@link #bindDuration}. */
  abstract String nowPlus();

  /** Binds the parameter of {@link #nowPlus()}. */
  abstract void bindDuration(PreparedStatement statement, int index, Duration duration)
      throws SQLException;

  // ---- ids and instants -------------------------------------------------------------------

  void bindId(PreparedStatement statement, int index, UUID id) throws SQLException {
    statement.setObject(index, id);
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

  // ---- transactions -----------------------------------------------------------------------

  /**
   * The isolation level of a connection, to restore after the store's transaction, which runs at
   * READ COMMITTED. By default that is assumed without asking: the default of the database, and
   * PostgreSQL's driver answers {@link Connection#getTransactionIsolation()} with a round trip to
   * the server, which every claim and record would pay for nothing.
   */
  int isolation(Connection connection) throws SQLException {
    return Connection.TRANSACTION_READ_COMMITTED;
  }

  /**
   * Prepares a transaction for a query whose estimated cost is far above what it does (the stats'
   * sum over the pending heads). Nothing by default.
   */
  void prepareShortQueries(Connection connection) throws SQLException {}

  // ---- the write path ---------------------------------------------------------------------

  /**
   * The upsert of {@code rows} heads, bound by {@link HeadUpsert#bind}: per head its type, id,
   * events, lease duration, claimer and first token.
   */
  abstract String upsertHeads(int rows);

  /**
   * Runs a bound {@link #upsertHeads} and reads the heads' {@link HeadUpsert#RETURNED} columns: by
   * default with a select after it.
   */
  <T> T upsertAndRead(
      Connection connection,
      PreparedStatement upsert,
      List<HeadUpsert.Part> parts,
      HeadUpsert.Reader<T> reader)
      throws SQLException {
    executeUpsert(upsert);
    String condition =
        String.join(
            " OR ", Collections.nCopies(parts.size(), "(aggregate_type = ? AND aggregate_id = ?)"));
    try (PreparedStatement select = connection.prepareStatement(selectHeads + condition)) {
      int index = 1;
      for (HeadUpsert.Part part : parts) {
        select.setString(index++, part.aggregateType());
        select.setString(index++, part.aggregateId());
      }
      try (ResultSet rows = select.executeQuery()) {
        return reader.read(rows);
      }
    }
  }

  /** Runs a bound {@link #upsertHeads} that returns nothing. */
  void executeUpsert(PreparedStatement upsert) throws SQLException {
    upsert.executeUpdate();
  }

  /**
   * Writes a flush: by default the head upsert, then the rows with the seqs it gave them.
   *
   * @return per aggregate key, where the flush's messages of that aggregate went
   */
  Map<String, HeadUpsert.Written> writeFlush(
      Connection connection, FlushWriter.Flush flush, HeadUpsert heads, OutboxRowWriter rows)
      throws SQLException {
    Map<String, HeadUpsert.Written> written =
        heads.upsert(connection, flush.parts(), flush.claimer(), flush.lease());
    rows.write(connection, flush.sequenced(written).rows());
    return written;
  }

  // ---- delivery and cleanup ---------------------------------------------------------------

  /** How this database claims heads, reads their messages and records their outcomes. */
  abstract HeadCycle headCycle(HeadRecorder recorder);

  /** The statements of the cleanup, each bounding its delete this database's way. */
  abstract Cleanup cleanup();

  /**
   * The cleanup's deletes.
   *
   * @param delivered deletes up to a limit of delivered messages created before a time: created
   *     before, limit
   * @param written deletes up to a limit of messages created before a time: created before, limit
   * @param idleHeads deletes up to a limit of heads with nothing pending, held or leased, and no
   *     message: limit
   */
  record Cleanup(String delivered, String written, String idleHeads) {

    /** The three statements. */
    List<String> all() {
      return List.of(delivered, written, idleHeads);
    }
  }

  /**
   * The vacuum of the store's tables after every {@code threshold} changed rows: by default one
   * that never runs.
   */
  TableVacuum vacuum(DataSource connections, long threshold) {
    return TableVacuum.never();
  }

  /** {@code rows} copies of a row of values, comma-separated. */
  static String repeat(String row, int rows) {
    return row + (", " + row).repeat(rows - 1);
  }
}
