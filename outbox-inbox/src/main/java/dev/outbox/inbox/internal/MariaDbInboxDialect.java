package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * MariaDB and MySQL (InnoDB): DATETIME(6) in UTC; deletes take {@code LIMIT}; the inbox's own
 * transactions run at READ COMMITTED whatever the connection's level, because under REPEATABLE READ
 * InnoDB's gap locks on a missing position make concurrent first messages deadlock.
 */
final class MariaDbInboxDialect extends PortableInboxDialect {

  /** ER_DUP_ENTRY. */
  private static final int DUPLICATE_ENTRY = 1062;

  MariaDbInboxDialect(InboxOptions options) {
    super(options);
  }

  @Override
  String migrationResource() {
    return "db/inbox/mariadb/V1__inbox_tables.sql";
  }

  @Override
  public String toString() {
    return "MariaDB/MySQL";
  }

  @Override
  String now() {
    return "UTC_TIMESTAMP(6)";
  }

  @Override
  String nowMinus() {
    return "(UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)";
  }

  @Override
  Instant readInstant(ResultSet rows, int column) throws SQLException {
    LocalDateTime value = rows.getObject(column, LocalDateTime.class);
    return value == null ? null : value.toInstant(ZoneOffset.UTC);
  }

  @Override
  boolean isDuplicateKey(SQLException e) {
    return e.getErrorCode() == DUPLICATE_ENTRY;
  }

  @Override
  String boundedDelete(String table, String key, String condition) {
    return "DELETE FROM " + table + " WHERE " + condition + " LIMIT ?";
  }

  /** Asked: the default REPEATABLE READ is not READ COMMITTED. */
  @Override
  int isolation(Connection connection) throws SQLException {
    return connection.getTransactionIsolation();
  }
}
