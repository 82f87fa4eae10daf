package dev.outbox.inbox.internal;

import dev.outbox.OutboxException;
import dev.outbox.inbox.InboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What differs between the databases the inbox supports: the clock, how a row is inserted unless
 * one exists (without a race), how a delete is bounded, how instants are read, and the isolation of
 * the inbox's own transactions. It holds every statement, made from text blocks with the configured
 * tables filled in; the rest of the inbox never asks which database it is on.
 *
 * <p>Templates name the tables ({@code {positions}}, {@code {ids}}) and the clock ({@code {now}},
 * and {@code {now_minus}} for the clock minus one age parameter bound by {@link #bindAge}).
 */
abstract sealed class InboxDialect permits PostgresInboxDialect, PortableInboxDialect {

  /** The columns of a position, in the order {@link Positions} reads them. */
  static final String POSITION_COLUMNS =
      "source, aggregate_type, aggregate_id, epoch, applied_seq, applied_at, gap_epoch, gap_seq,"
          + " gap_since";

  /** The columns of a received id. */
  static final String ID_COLUMNS = "source, message_id, received_at";

  /** A gap recorded and not yet passed by the position: its message still waits. */
  static final String OPEN_GAP =
      "gap_seq IS NOT NULL AND (gap_epoch > epoch OR (gap_epoch = epoch AND gap_seq > applied_seq))";

  private static final String KEY = "source = ? AND aggregate_type = ? AND aggregate_id = ?";

  private final String positions;
  private final String ids;

  /** The optimistic move of the next message: position (e, q) to (e, s). */
  final String advance;

  /** The locking read of a position. */
  final String lock;

  /** The move of a locked position. */
  final String move;

  /** Records a gap, since now. */
  final String recordGap;

  /** Lowers a recorded gap to an earlier message, keeping since when. */
  final String lowerGap;

  /** Inserts a position with its first message applied. */
  final String insertApplied;

  /** Inserts a position with nothing applied and a gap. */
  final String insertGap;

  /** Inserts a received id. */
  final String insertId;

  /** Reads the positions of a source. */
  final String list;

  /** Reads the positions of a source with a gap open. */
  final String gaps;

  /** Deletes a batch of idle positions without an open gap. */
  final String deleteIdlePositions;

  /** Deletes a batch of old received ids. */
  final String deleteOldIds;

  InboxDialect(InboxOptions options) {
    this.positions = options.positionsTable();
    this.ids = options.receivedIdsTable();
    this.advance =
        sql(
            """
            UPDATE {positions} SET epoch = ?, applied_seq = ?, applied_at = {now}
            WHERE source = ? AND aggregate_type = ? AND aggregate_id = ?
              AND epoch = ? AND applied_seq = ?
            """);
    this.lock =
        sql(
            "SELECT epoch, applied_seq, gap_epoch, gap_seq FROM {positions} WHERE %s FOR UPDATE"
                .formatted(KEY));
    this.move =
        sql(
            "UPDATE {positions} SET epoch = ?, applied_seq = ?, applied_at = {now} WHERE %s"
                .formatted(KEY));
    this.recordGap =
        sql(
            "UPDATE {positions} SET gap_epoch = ?, gap_seq = ?, gap_since = {now} WHERE %s"
                .formatted(KEY));
    this.lowerGap =
        sql("UPDATE {positions} SET gap_epoch = ?, gap_seq = ? WHERE %s".formatted(KEY));
    this.insertApplied =
        insertUnlessPresent(
            sql(
                """
                INSERT INTO {positions}
                  (source, aggregate_type, aggregate_id, epoch, applied_seq, applied_at)
                VALUES (?, ?, ?, ?, ?, {now})
                """));
    this.insertGap =
        insertUnlessPresent(
            sql(
                """
                INSERT INTO {positions}
                  (source, aggregate_type, aggregate_id, epoch, applied_seq, applied_at,
                   gap_epoch, gap_seq, gap_since)
                VALUES (?, ?, ?, 0, 0, {now}, ?, ?, {now})
                """));
    this.insertId =
        insertUnlessPresent(
            sql("INSERT INTO {ids} (source, message_id, received_at) VALUES (?, ?, {now})"));
    this.list =
        sql(
            """
            SELECT %s FROM {positions} WHERE source = ?
            ORDER BY aggregate_type, aggregate_id LIMIT ?
            """
                .formatted(POSITION_COLUMNS));
    this.gaps =
        sql(
            """
            SELECT %s FROM {positions} WHERE source = ? AND %s
            ORDER BY gap_since, aggregate_type, aggregate_id LIMIT ?
            """
                .formatted(POSITION_COLUMNS, OPEN_GAP));
    this.deleteIdlePositions =
        sql(
            boundedDelete(
                "{positions}",
                "source, aggregate_type, aggregate_id",
                "source = ? AND applied_at < {now_minus} AND NOT (" + OPEN_GAP + ")"));
    this.deleteOldIds =
        sql(
            boundedDelete(
                "{ids}", "source, message_id", "source = ? AND received_at < {now_minus}"));
  }

  /**
   * The dialect of the database a JDBC driver reports: the one place that tells the databases
   * apart.
   *
   * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
   * @param options the table names
   * @return the dialect
   * @throws OutboxException for a database the inbox does not support
   */
  static InboxDialect of(String productName, InboxOptions options) {
    String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
    if (name.contains("postgresql")) {
      return new PostgresInboxDialect(options);
    }
    if (name.contains("mariadb") || name.contains("mysql")) {
      return new MariaDbInboxDialect(options);
    }
    if (name.equals("h2")) {
      return new H2InboxDialect(options);
    }
    throw new OutboxException(
        "The inbox supports PostgreSQL, MariaDB/MySQL and H2, but the database is " + productName);
  }

  /**
   * Where the migration of this database lives on the class path.
   *
   * @return {@code db/inbox/<database>/V1__inbox_tables.sql}
   */
  abstract String migrationResource();

  /** The database's name as users know it: PostgreSQL, MariaDB/MySQL, H2. */
  @Override
  public abstract String toString();

  /**
   * The locking read of several positions of one source, in key order (the order every transaction
   * that locks several positions takes them in): source, then type and id per key.
   *
   * @param keys how many keys, 1 or more
   */
  final String lockAll(int keys) {
    return sql(
        """
        SELECT aggregate_type, aggregate_id, epoch, applied_seq, gap_epoch, gap_seq
        FROM {positions} WHERE source = ? AND (aggregate_type, aggregate_id) IN (%s)
        ORDER BY aggregate_type, aggregate_id FOR UPDATE
        """
            .formatted(String.join(", ", Collections.nCopies(keys, "(?, ?)"))));
  }

  /**
   * One statement that moves several positions of a source, where the database has one (PostgreSQL:
   * an update from arrays): source, then the types, ids, epochs and seqs as arrays. {@code null}
   * where the moves go as a JDBC batch of {@link #move}.
   */
  String moveAll() {
    return null;
  }

  /**
   * The locking read of several positions from arrays where the database has one (PostgreSQL): the
   * types and ids as arrays, then the source. {@code null} where {@link #lockAll(int)} serves.
   */
  String lockAllFromArrays() {
    return null;
  }

  /** Every statement, for checks. */
  final List<String> statements() {
    return List.of(
        advance,
        lock,
        move,
        recordGap,
        lowerGap,
        insertApplied,
        insertGap,
        insertId,
        list,
        gaps,
        deleteIdlePositions,
        deleteOldIds);
  }

  /**
   * A statement from a template: its placeholders filled in, each run of white space made one
   * space.
   *
   * @throws IllegalStateException when a placeholder is left
   */
  final String sql(String template) {
    String sql =
        template
            .replace("{positions}", positions)
            .replace("{ids}", ids)
            .replace("{now_minus}", nowMinus())
            .replace("{now}", now())
            .strip()
            .replaceAll("\\s+", " ");
    if (sql.contains("{")) {
      throw new IllegalStateException("A placeholder is left in the statement: " + sql);
    }
    return sql;
  }

  // ---- the clock --------------------------------------------------------------------------

  /** The database clock when the statement runs, as the type of the tables' time columns. */
  abstract String now();

  /** {@link #now()} minus one age parameter, bound with {@link #bindAge}. */
  abstract String nowMinus();

  /** Binds the parameter of {@link #nowMinus()}. */
  abstract void bindAge(PreparedStatement statement, int index, Duration age) throws SQLException;

  /** Reads a time column; {@code null} stays {@code null}. */
  Instant readInstant(ResultSet rows, int column) throws SQLException {
    OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
    return value == null ? null : value.toInstant();
  }

  // ---- writes -----------------------------------------------------------------------------

  /** An insert as this database runs it when the row may exist already. */
  abstract String insertUnlessPresent(String insert);

  /**
   * Runs a bound insert of {@link #insertUnlessPresent}: the row is inserted (and locked until the
   * transaction ends) unless a row with its key exists, committed or not, in which case this waits
   * for the other transaction and reports that nothing was inserted. The transaction stays usable.
   *
   * @return whether the row was inserted
   */
  abstract boolean executeInsert(PreparedStatement insert) throws SQLException;

  /**
   * A delete of at most one bound parameter's worth of rows, after the condition's parameters.
   *
   * @param table the table placeholder
   * @param key the table's key columns
   * @param condition which rows
   */
  abstract String boundedDelete(String table, String key, String condition);

  // ---- transactions -----------------------------------------------------------------------

  /**
   * The isolation level to restore after a transaction of the inbox's own, which runs at READ
   * COMMITTED. By default that is assumed without asking (a round trip on some drivers).
   */
  int isolation(Connection connection) throws SQLException {
    return Connection.TRANSACTION_READ_COMMITTED;
  }
}
