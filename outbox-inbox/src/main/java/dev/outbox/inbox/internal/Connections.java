package dev.outbox.inbox.internal;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The inbox's own use of connections: at READ COMMITTED (set and restored where the connection's
 * level differs), in one transaction or in auto-commit mode, the connection's settings restored
 * before it is closed.
 */
final class Connections {

  /** Work on a connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource dataSource;
  private final InboxDialect dialect;

  Connections(DataSource dataSource, InboxDialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /** Runs work in auto-commit mode: each statement its own transaction. */
  <T> T autoCommit(Work<T> work) throws SQLException {
    return run(true, work);
  }

  /** Runs work in one transaction: commits when it returns, rolls back when it throws. */
  <T> T transaction(Work<T> work) throws SQLException {
    return run(false, work);
  }

  private <T> T run(boolean autoCommit, Work<T> work) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      int isolation = dialect.isolation(connection);
      boolean wasAutoCommit = connection.getAutoCommit();
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      if (wasAutoCommit != autoCommit) {
        connection.setAutoCommit(autoCommit);
      }
      try {
        T result = work.run(connection);
        if (!autoCommit) {
          connection.commit();
        }
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        if (!autoCommit) {
          rollback(connection, e);
        }
        throw e;
      } finally {
        if (wasAutoCommit != autoCommit) {
          connection.setAutoCommit(wasAutoCommit);
        }
        if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
          connection.setTransactionIsolation(isolation);
        }
      }
    }
  }

  private static void rollback(Connection connection, Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}
