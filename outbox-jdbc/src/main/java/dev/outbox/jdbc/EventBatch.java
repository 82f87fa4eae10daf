package dev.outbox.jdbc;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;
import dev.outbox.jdbc.internal.PendingRows;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Events of one transaction, written together: each event is checked and serialized when it is
 * added; {@link #send} then locks the heads of all their aggregates in sorted key order, gives each
 * event its seq, and inserts the rows, in one round trip on PostgreSQL. Sending the events of
 * several aggregates in one batch is how a transaction avoids deadlocks with others that send to
 * the same aggregates in another order. Not thread-safe; one batch per transaction.
 *
 * <pre>{@code
 * jdbcOutbox.batch()
 *     .add("Order", orderId, new OrderPlaced(orderId, total))
 *     .add("Customer", customerId, new CreditReserved(customerId, total))
 *     .send(connection);
 * }</pre>
 */
public final class EventBatch {

  private final JdbcOutbox outbox;
  private final PendingRows rows;

  EventBatch(JdbcOutbox outbox, PendingRows rows) {
    this.outbox = outbox;
    this.rows = rows;
  }

  /**
   * Adds an event for an aggregate. Events of one aggregate keep the order they were added in.
   *
   * @param aggregateType the aggregate type (routing: topic, subject, ...), non-blank, at most 255
   *     characters
   * @param aggregateId the aggregate id (ordering and partitioning), non-blank, at most 255
   *     characters
   * @param event the event
   * @return this batch
   * @throws OutboxException naming what is wrong (a name, or an event the serializer cannot
   *     handle); nothing is added
   */
  public EventBatch add(String aggregateType, String aggregateId, DomainEvent event) {
    rows.add(aggregateType, aggregateId, event);
    return this;
  }

  /**
   * Moves the events of another batch of the same outbox behind the events of this one.
   *
   * @param other the batch to empty into this one
   * @return this batch
   */
  public EventBatch addAll(EventBatch other) {
    rows.addAll(other.rows);
    return this;
  }

  /**
   * How many events wait to be sent.
   *
   * @return the count
   */
  public int size() {
    return rows.size();
  }

  /**
   * Writes the events on a connection in a transaction; they are delivered once it commits, and
   * never if it rolls back. When the outbox's {@link TransactionObserver} sees the transaction, the
   * processor of this JVM is handed them after the commit.
   *
   * @param connection a connection with auto-commit off
   * @throws OutboxException when the connection is in auto-commit mode or the write fails; the
   *     transaction should then roll back
   */
  public void send(Connection connection) {
    outbox.write(connection, rows);
  }

  /**
   * Writes the events as {@link #send} does, for a persistence adapter that observes the commit
   * itself.
   *
   * @param connection a connection in a transaction
   * @return what to run once the transaction committed (hand-over and wake-up); never after a
   *     rollback
   * @throws SQLException when the write fails
   */
  public Runnable write(Connection connection) throws SQLException {
    return rows.write(connection, true);
  }
}
