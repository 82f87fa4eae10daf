package dev.outbox.jdbc.internal;

import dev.outbox.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short transactions on connections of the outbox's data source.
 *
 * <p>A transaction the database rolled back to break a deadlock or a serialization conflict is run
 * again, up to {@value #ATTEMPTS} times: recording the outcomes of a published batch must not be
 * lost to a transient conflict, or the batch would be published again once its lease runs out. On
 * MariaDB/MySQL the transactions run at READ COMMITTED: under the default REPEATABLE READ a locking
 * read keeps locks on every row it examined and takes gap locks, and concurrent claims and records
 * then deadlock.
 */
final class Jdbc {

  private static final Logger LOG = LoggerFactory.getLogger(Jdbc.class);
  static final int ATTEMPTS = 5;

  /** Work inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource connections;
  private final Dialect dialect;

  Jdbc(DataSource connections, Dialect dialect) {
    this.connections = connections;
    this.dialect = dialect;
  }

  <T> T inTransaction(String what, Work<T> work) {
    return run(what, work, false);
  }

  /**
   * Runs work that is a single statement with the connection in auto-commit: the statement is its
   * own transaction, and no separate commit round trip follows it.
   */
  <T> T inOneStatement(String what, Work<T> work) {
    return run(what, work, true);
  }

  private <T> T run(String what, Work<T> work, boolean autoCommitted) {
    for (int attempt = 1; ; attempt++) {
      try {
        return once(work, autoCommitted);
      } catch (SQLException e) {
        if (!rolledBackForAConflict(e) || attempt == ATTEMPTS) {
          throw failure(what, e);
        }
        LOG.debug(
            "Outbox store transaction to {} rolled back ({}); running it again",
            what,
            e.getMessage());
      }
    }
  }

  /**
   * Whether the database rolled the transaction back to break a deadlock or a serialization
   * conflict: SQLState class 40. PgJDBC reports it as a plain {@code PSQLException} with SQLState
   * 40P01 or 40001, not as a {@link SQLTransactionRollbackException}; MariaDB's driver uses the
   * subclass.
   */
  static boolean rolledBackForAConflict(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLTransactionRollbackException
        || (state != null && state.startsWith("40"));
  }

  private static OutboxException failure(String what, SQLException e) {
    return new OutboxException("Outbox store could not " + what + ": " + e.getMessage(), e);
  }

  private <T> T once(Work<T> work, boolean autoCommitted) throws SQLException {
    Connection connection = connections.getConnection();
    try {
      boolean autoCommit = connection.getAutoCommit();
      int isolation = dialect.isolation(connection);
      boolean readCommitted = isolation != Connection.TRANSACTION_READ_COMMITTED;
      if (readCommitted) {
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      connection.setAutoCommit(autoCommitted);
      try {
        T result = work.run(connection);
        if (!autoCommitted) {
          connection.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!autoCommitted) {
          rollbackQuietly(connection, e);
        }
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
        if (readCommitted) {
          connection.setTransactionIsolation(isolation);
        }
      }
    } finally {
      try {
        connection.close();
      } catch (SQLException e) {
        // the connection is gone either way
      }
    }
  }

  private static void rollbackQuietly(Connection connection, Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}
