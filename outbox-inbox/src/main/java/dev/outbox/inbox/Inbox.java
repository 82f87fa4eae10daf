package dev.outbox.inbox;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxException;
import dev.outbox.inbox.internal.Inboxes;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The consumer side of the outbox: applies each received message once and in seq order per
 * aggregate, in the consumer's database transaction.
 *
 * <p>The inbox keeps one position per (source, aggregate): the epoch and seq of the last message
 * applied. {@link #apply} locks that row, decides, and runs the handler only for the next message
 * of the aggregate's stream, moving the position in the same transaction; a message at or below the
 * position is a {@linkplain InboxOutcome#DUPLICATE duplicate}, one beyond a missing message a
 * {@linkplain InboxOutcome#GAP gap} (see {@link GapPolicy}). A message without seq (from another
 * producer) is de-duplicated by its id instead.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.create(dataSource, InboxOptions.builder().source("billing").build());
 * inbox.start(); // the cleanup, every minute
 * InboxResult result = inbox.receive(message, (connection, m) -> invoices.record(connection, m));
 * if (result.acknowledge()) { ack(message); } else { redeliverLater(message); }
 * }</pre>
 *
 * <p>Thread-safe; one inbox per source and data source is enough for an application.
 */
public interface Inbox extends AutoCloseable {

  /**
   * Creates an inbox: connects once to learn the database and check its tables (creating them first
   * when {@link InboxOptions#createSchema()} says so).
   *
   * @param dataSource the consumer's database, where its handlers write
   * @param options the options
   * @return the inbox, its cleanup not started
   * @throws OutboxException when the database is not supported or unreachable, or a table is
   *     missing or lacks columns: the message names the table, the database and the migration to
   *     run ({@code db/inbox/<database>/V1__inbox_tables.sql})
   */
  static Inbox create(DataSource dataSource, InboxOptions options) {
    return Inboxes.create(dataSource, options);
  }

  /**
   * Creates an inbox with one more listener than the options name.
   *
   * @param dataSource the consumer's database
   * @param options the options
   * @param listener told of every outcome
   * @return the inbox, its cleanup not started
   * @throws OutboxException as {@link #create(DataSource, InboxOptions)}
   */
  static Inbox create(DataSource dataSource, InboxOptions options, InboxListener listener) {
    return Inboxes.create(dataSource, options.toBuilder().listener(listener).build());
  }

  /**
   * Applies a message in the caller's transaction: decides from the aggregate's position (locked
   * until the transaction ends) and, when the message is next, runs the handler on the same
   * connection and moves the position. The caller commits; when the handler throws, the exception
   * propagates and the caller must roll back, which leaves the position where it was.
   *
   * @param connection a connection in a transaction (auto-commit off), where the handler's effects
   *     go
   * @param message the message
   * @param handler what to do with it
   * @return what was done
   * @throws IllegalStateException when the connection is in auto-commit mode
   * @throws InboxGapException on a gap under {@link GapPolicy#FAIL}; nothing was written
   * @throws IllegalArgumentException when an aggregate or message id is longer than the tables hold
   *     (255 characters)
   * @throws SQLException from the database, or from the handler
   */
  InboxResult apply(Connection connection, IncomingMessage message, InboxHandler handler)
      throws SQLException;

  /**
   * Applies a batch of messages (a consumer's poll) in the caller's transaction, each as {@link
   * #apply} would, in the batch's order, with a few round trips for the whole batch instead of one
   * or more per message: the positions the batch names are locked in one read, decided on in memory
   * as each message moves its aggregate's position, and written at the end. Use it where a consumer
   * commits a poll at once (Kafka, a RabbitMQ prefetch acknowledged together); the results line up
   * with the messages.
   *
   * @param connection a connection in a transaction (auto-commit off), where the handler's effects
   *     go
   * @param messages the messages, in the order received
   * @param handler what to do with each message that is next of its stream
   * @return what was done with each message, in the order given
   * @throws IllegalStateException when the connection is in auto-commit mode
   * @throws InboxGapException on a gap under {@link GapPolicy#FAIL}; roll the whole batch back
   * @throws SQLException from the database, or from the handler; roll the whole batch back
   */
  List<InboxResult> applyAll(
      Connection connection, List<IncomingMessage> messages, InboxHandler handler)
      throws SQLException;

  /**
   * Applies a batch of messages in a transaction of its own, as {@link #applyAll} does: commits
   * when every message was applied, a duplicate or a gap; rolls back and rethrows when a handler
   * (or the database) fails, and then no message of the batch counts as applied.
   *
   * @param messages the messages, in the order received
   * @param handler what to do with each
   * @return what was done with each message, in the order given
   * @throws InboxGapException on a gap under {@link GapPolicy#FAIL}
   * @throws OutboxException wrapping an {@link SQLException} or a checked exception of a handler;
   *     an unchecked exception of a handler is rethrown as it is
   */
  List<InboxResult> receiveAll(List<IncomingMessage> messages, InboxHandler handler);

  /**
   * Applies a message in a transaction of its own on a connection of the data source: commits when
   * the message was applied, a duplicate or a gap; rolls back and rethrows when the handler (or the
   * database) fails. On MariaDB/MySQL the transaction runs at READ COMMITTED.
   *
   * @param message the message
   * @param handler what to do with it
   * @return what was done
   * @throws InboxGapException on a gap under {@link GapPolicy#FAIL}
   * @throws OutboxException wrapping an {@link SQLException} or a checked exception of the handler;
   *     an unchecked exception of the handler is rethrown as it is
   */
  InboxResult receive(IncomingMessage message, InboxHandler handler);

  /**
   * Deletes, in batches of {@link InboxOptions#cleanupBatchSize()} rows, the positions of this
   * source idle longer than {@link InboxOptions#positionRetention()} with no gap open, and the
   * received ids older than {@link InboxOptions#idRetention()}. {@link #start()} runs it
   * periodically; call it directly from a scheduler of your own instead.
   *
   * @return how many rows were deleted
   * @throws OutboxException wrapping the database's error
   */
  InboxCleanup cleanUp();

  /**
   * Runs {@link #cleanUp()} every {@link InboxOptions#cleanupInterval()} on a daemon thread. A
   * failing run is logged and the next one runs as planned. Calling it again does nothing.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  void start();

  /**
   * Stops the cleanup thread, waiting briefly for a run in progress. Calling it again does nothing.
   * {@link #apply} and {@link #receive} keep working: they hold nothing open.
   */
  @Override
  void close();

  /**
   * Positions of this source, by aggregate type and id.
   *
   * @param limit how many at most, 1 or more
   * @return the positions, each with its open gap if any
   * @throws OutboxException wrapping the database's error
   */
  List<InboxPosition> positions(int limit);

  /**
   * Positions of this source with a gap open (a message beyond it waiting for the messages before
   * it), the oldest gap first.
   *
   * @param limit how many at most, 1 or more
   * @return the positions with a gap
   * @throws OutboxException wrapping the database's error
   */
  List<InboxPosition> gaps(int limit);

  /**
   * The options the inbox was made with.
   *
   * @return the options
   */
  InboxOptions options();
}
