package dev.outbox.spring.boot;

import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.jdbc.TransactionObserver;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The commit of Spring-managed transactions, for a {@link JdbcOutbox}: when the connection the
 * events were written on is the one the current transaction holds for the data source, the
 * hand-over to the processor of this JVM runs in a {@link
 * TransactionSynchronization#afterCommit()}; otherwise (no synchronization, another connection) it
 * answers {@code false} and the processor finds the events at its next poll.
 *
 * <pre>{@code
 * JdbcOutbox outbox = JdbcOutbox.builder(dataSource)
 *     .options(options)
 *     .transactionObserver(new SpringTransactionObserver(dataSource))
 *     .build();
 * }</pre>
 */
public final class SpringTransactionObserver implements TransactionObserver {

  private final DataSource dataSource;

  /**
   * The observer of the transactions on a data source.
   *
   * @param dataSource the data source Spring's transaction manager binds connections for; the one
   *     the {@link JdbcOutbox} is built on
   */
  public SpringTransactionObserver(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public boolean afterCommit(Connection connection, Runnable afterCommit) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(new AfterCommit(afterCommit));
    return true;
  }

  /** Runs the action once the transaction committed; never after a rollback. */
  private record AfterCommit(Runnable action) implements TransactionSynchronization {
    @Override
    public void afterCommit() {
      action.run();
    }
  }
}
