package dev.outbox.spring.boot;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxException;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxHandler;
import dev.outbox.inbox.InboxResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The inbox in the application's current Spring transaction: {@link #apply} decides on the
 * aggregate's position and runs the handler on the transaction's own connection, so that the
 * handler's effects (through JDBC, {@code JdbcTemplate}, or JPA's {@code EntityManager}, whose
 * transaction exposes the same connection), the events it sends through {@link OutboxEvents} or its
 * aggregates register, and the position commit together, or roll back together.
 *
 * <pre>{@code
 * @RabbitListener(queues = "billing")
 * @Transactional
 * public void on(Message message) {
 *   inbox.apply(incoming(message), (connection, m) -> {
 *     invoices.save(new Invoice(m.aggregateId(), parse(m.payloadText())));   // JPA
 *     outboxEvents.send("Invoice", m.aggregateId(), new InvoiceIssued(...));  // and tell others
 *   });
 * }
 * }</pre>
 *
 * <p>A listener whose container redelivers a message when the method throws (Spring AMQP, Spring
 * Kafka) does best with {@code outbox.inbox.gap-policy=fail}: a message that comes before the one
 * it follows then throws {@link dev.outbox.inbox.InboxGapException}, the transaction rolls back,
 * and the container delivers it again.
 */
public final class TransactionalInbox {

  private final Inbox inbox;
  private final DataSource dataSource;

  /**
   * The inbox on the data source whose transactions Spring manages.
   *
   * @param inbox the inbox
   * @param dataSource the data source of the application's transactions
   */
  public TransactionalInbox(Inbox inbox, DataSource dataSource) {
    this.inbox = Objects.requireNonNull(inbox, "inbox");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /**
   * Applies a message in the current transaction ({@link Inbox#apply}): the handler runs only when
   * the message is the next of its aggregate's stream.
   *
   * @param message the message, read with the broker adapter's binding ({@code
   *     RabbitMqIncoming.of}, {@code KafkaIncoming.of}, ...) or {@link IncomingMessage#of}
   * @param handler what to do with it, on the transaction's connection
   * @return applied, duplicate or gap
   * @throws OutboxException when no Spring transaction is active (annotate the calling method
   *     {@code @Transactional}), or wrapping the database's or the handler's checked exception; the
   *     transaction must then roll back
   * @throws dev.outbox.inbox.InboxGapException on a gap under {@code gap-policy=fail}
   */
  public InboxResult apply(IncomingMessage message, InboxHandler handler) {
    return inTransaction(
        String.valueOf(message), connection -> inbox.apply(connection, message, handler));
  }

  /** What the inbox does on the transaction's connection. */
  @FunctionalInterface
  private interface OnConnection<T> {
    T run(Connection connection) throws SQLException;
  }

  private <T> T inTransaction(String what, OnConnection<T> work) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new OutboxException(
          "TransactionalInbox.apply needs a Spring transaction, so that the handler's effects and"
              + " the position of inbox '"
              + inbox.options().source()
              + "' commit together, but none is active: annotate the listener method (or the"
              + " service it calls) with @Transactional");
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      return work.run(connection);
    } catch (SQLException e) {
      throw new OutboxException(
          "Inbox '"
              + inbox.options().source()
              + "' could not apply "
              + what
              + ": "
              + e.getMessage()
              + ". Roll the transaction back; the message applies when it is delivered again",
          e);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }

  /**
   * Applies a batch of messages (a listener's batch of records) in the current transaction ({@link
   * Inbox#applyAll}): a few round trips for the whole batch.
   *
   * @param messages the messages, in the order received
   * @param handler what to do with each message that is next of its stream
   * @return what was done with each message, in the order given
   * @throws OutboxException as {@link #apply}
   * @throws dev.outbox.inbox.InboxGapException on a gap under {@code gap-policy=fail}
   */
  public List<InboxResult> applyAll(List<IncomingMessage> messages, InboxHandler handler) {
    return inTransaction(
        messages.size() + " messages", connection -> inbox.applyAll(connection, messages, handler));
  }

  /**
   * The inbox itself: its positions, gaps and cleanup.
   *
   * @return the inbox
   */
  public Inbox inbox() {
    return inbox;
  }

  @Override
  public String toString() {
    return "TransactionalInbox[" + inbox + ']';
  }
}
