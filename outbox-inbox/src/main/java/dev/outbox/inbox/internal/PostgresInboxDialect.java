package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxOptions;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * PostgreSQL: {@code timestamptz} on the statement's clock; a row that may exist is inserted with
 * {@code ON CONFLICT DO NOTHING} (a failed statement would abort the caller's transaction); a
 * bounded delete takes its keys from a {@code LIMIT ... FOR UPDATE SKIP LOCKED} subquery, so that
 * it never waits for a consumer holding a position.
 */
final class PostgresInboxDialect extends InboxDialect {

  PostgresInboxDialect(InboxOptions options) {
    super(options);
  }

  @Override
  String migrationResource() {
    return "db/inbox/postgresql/V1__inbox_tables.sql";
  }

  @Override
  public String toString() {
    return "PostgreSQL";
  }

  @Override
  String now() {
    return "statement_timestamp()";
  }

  @Override
  String nowMinus() {
    return "(statement_timestamp() - make_interval(secs => ?))";
  }

  @Override
  void bindAge(PreparedStatement statement, int index, Duration age) throws SQLException {
    statement.setDouble(index, age.toNanos() / 1e9);
  }

  /**
   * One update for a batch's positions: a JDBC batch of single-row updates costs the server a
   * statement each, about as much as the consumer's own handler statement (measured: 50 of them in
   * a poll doubled the poll's time). Each position is found through the primary key from the
   * arrays' side ({@code OFFSET 0} keeps the lateral lookup from being flattened): on a table
   * without statistics yet, a plain join was planned as a nested loop over the whole table for each
   * element (20 ms for 50 positions of 1,000, against under 1 ms this way).
   */
  @Override
  String moveAll() {
    return sql(
        """
        UPDATE {positions} p SET epoch = x.e, applied_seq = x.s, applied_at = {now}
        FROM (SELECT k.ctid AS c, v.e, v.s
          FROM unnest(?::varchar[], ?::varchar[], ?::bigint[], ?::bigint[]) AS v(t, i, e, s)
          CROSS JOIN LATERAL (SELECT ctid FROM {positions}
            WHERE source = ? AND aggregate_type = v.t AND aggregate_id = v.i OFFSET 0) k) x
        WHERE p.ctid = x.c
        """);
  }

  /**
   * The locking read of a batch's positions, from arrays: each row found through the primary key
   * and locked in the arrays' order (sorted by the caller), for the reason {@link #moveAll()}
   * gives.
   */
  @Override
  String lockAllFromArrays() {
    return sql(
        """
        SELECT k.aggregate_type, k.aggregate_id, k.epoch, k.applied_seq, k.gap_epoch, k.gap_seq
        FROM unnest(?::varchar[], ?::varchar[]) WITH ORDINALITY AS v(t, i, n)
        CROSS JOIN LATERAL (SELECT aggregate_type, aggregate_id, epoch, applied_seq, gap_epoch,
            gap_seq FROM {positions}
          WHERE source = ? AND aggregate_type = v.t AND aggregate_id = v.i FOR UPDATE) k
        ORDER BY v.n
        """);
  }

  @Override
  String insertUnlessPresent(String insert) {
    return insert + " ON CONFLICT DO NOTHING";
  }

  @Override
  boolean executeInsert(PreparedStatement insert) throws SQLException {
    return insert.executeUpdate() == 1;
  }

  @Override
  String boundedDelete(String table, String key, String condition) {
    return """
        DELETE FROM %1$s WHERE (%2$s) IN
          (SELECT %2$s FROM %1$s WHERE %3$s LIMIT ? FOR UPDATE SKIP LOCKED)
        """
        .formatted(table, key, condition);
  }
}
