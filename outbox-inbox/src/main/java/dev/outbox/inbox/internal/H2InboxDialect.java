package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxOptions;
import java.sql.SQLException;

/** H2 2.x: TIMESTAMP WITH TIME ZONE; deletes take {@code FETCH FIRST ? ROWS ONLY}. */
final class H2InboxDialect extends PortableInboxDialect {

  H2InboxDialect(InboxOptions options) {
    super(options);
  }

  @Override
  String migrationResource() {
    return "db/inbox/h2/V1__inbox_tables.sql";
  }

  @Override
  public String toString() {
    return "H2";
  }

  @Override
  String now() {
    return "CURRENT_TIMESTAMP";
  }

  @Override
  String nowMinus() {
    return "DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
  }

  @Override
  boolean isDuplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  @Override
  String boundedDelete(String table, String key, String condition) {
    return "DELETE FROM " + table + " WHERE " + condition + " FETCH FIRST ? ROWS ONLY";
  }
}
