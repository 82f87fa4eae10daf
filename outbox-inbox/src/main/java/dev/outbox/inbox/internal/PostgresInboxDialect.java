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
