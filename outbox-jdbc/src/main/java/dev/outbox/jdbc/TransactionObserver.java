package dev.outbox.jdbc;

import java.sql.Connection;

/**
 * Runs an action after the transaction a connection is in has committed, where the application's
 * transaction manager can tell: Spring's transaction synchronization, a JTA registry, or {@link
 * JdbcOutbox#inTransaction}. The action hands the messages just written to the processor of this
 * JVM (the fast path) and wakes it; without it, the processor finds them at its next poll.
 */
@FunctionalInterface
public interface TransactionObserver {

  /** Observes nothing: sends are found by polling, or by {@link JdbcOutbox#committed()}. */
  TransactionObserver NONE = (connection, action) -> false;

  /**
   * Registers an action to run once the transaction of a connection committed, not after a
   * rollback.
   *
   * @param connection the connection the events were written on
   * @param afterCommit the action; quick, and it does not throw
   * @return whether the action will run; {@code false} when this observer cannot see the
   *     connection's transaction
   */
  boolean afterCommit(Connection connection, Runnable afterCommit);
}
