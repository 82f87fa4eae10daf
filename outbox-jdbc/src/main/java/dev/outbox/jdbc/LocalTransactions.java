package dev.outbox.jdbc;

import dev.outbox.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactions of {@link JdbcOutbox#inTransaction}: one per thread at a time, whose commit the
 * outbox sees itself.
 */
final class LocalTransactions implements TransactionObserver {

  private static final Logger LOG = LoggerFactory.getLogger(LocalTransactions.class);

  /** The transaction open on this thread. */
  private record Open(Connection connection, List<Runnable> afterCommit) {}

  private final ThreadLocal<Open> open = new ThreadLocal<>();

  @Override
  public boolean afterCommit(Connection connection, Runnable afterCommit) {
    Open current = open.get();
    if (current == null || current.connection() != connection) {
      return false;
    }
    current.afterCommit().add(afterCommit);
    return true;
  }

  <T> T run(DataSource dataSource, JdbcOutbox.SqlWork<T> work) {
    if (open.get() != null) {
      throw new OutboxException(
          "JdbcOutbox.inTransaction was called inside another one on the same thread; send on the"
              + " connection the outer one gave you");
    }
    T result;
    Open current;
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      connection.setAutoCommit(false);
      current = new Open(connection, new ArrayList<>());
      open.set(current);
      try {
        result = work.run(connection);
        connection.commit();
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        open.remove();
        connection.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw new OutboxException("The transaction failed and was rolled back: " + e.getMessage(), e);
    }
    for (Runnable action : current.afterCommit()) {
      try {
        action.run();
      } catch (RuntimeException e) {
        LOG.warn("An outbox after-commit action failed; the processor will poll instead", e);
      }
    }
    return result;
  }

  private static void rollbackQuietly(Connection connection, Throwable cause) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }
}
