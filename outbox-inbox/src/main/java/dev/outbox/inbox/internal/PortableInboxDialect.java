package dev.outbox.inbox.internal;

import dev.outbox.inbox.InboxOptions;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * MariaDB/MySQL and H2, where a failed statement leaves the transaction usable: a row that may
 * exist is inserted plainly and the duplicate-key error means it exists. Both wait for a concurrent
 * uncommitted insert of the same key before reporting it. Ages are bound in microseconds.
 *
 * <p>Not {@code INSERT IGNORE} on MariaDB, which would turn other errors into warnings, nor {@code
 * ON DUPLICATE KEY UPDATE}, whose affected-row count cannot tell an insert from an unchanged row
 * when the driver reports found rows (MariaDB Connector/J's default).
 */
abstract sealed class PortableInboxDialect extends InboxDialect
    permits MariaDbInboxDialect, H2InboxDialect {

  PortableInboxDialect(InboxOptions options) {
    super(options);
  }

  /** Whether an error is the duplicate-key error of an insert. */
  abstract boolean isDuplicateKey(SQLException e);

  @Override
  final String insertUnlessPresent(String insert) {
    return insert;
  }

  @Override
  final boolean executeInsert(PreparedStatement insert) throws SQLException {
    try {
      insert.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  @Override
  final void bindAge(PreparedStatement statement, int index, Duration age) throws SQLException {
    statement.setLong(index, age.toNanos() / 1_000);
  }
}
