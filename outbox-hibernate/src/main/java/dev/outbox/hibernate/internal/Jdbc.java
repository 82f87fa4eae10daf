package dev.outbox.hibernate.internal;

import dev.outbox.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;

/** Short transactions on connections of the session factory's connection provider. */
final class Jdbc {

  /** Work inside one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final ConnectionProvider connections;

  Jdbc(ConnectionProvider connections) {
    this.connections = connections;
  }

  <T> T inTransaction(String what, Work<T> work) {
    Connection connection = null;
    try {
      connection = connections.getConnection();
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new OutboxException("Outbox store could not " + what + ": " + e.getMessage(), e);
    } finally {
      if (connection != null) {
        try {
          connections.closeConnection(connection);
        } catch (SQLException e) {
          // the connection is gone either way
        }
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
