package dev.outbox.inbox;

import dev.outbox.IncomingMessage;
import java.sql.Connection;

/**
 * What a consumer does with a message, run by {@link Inbox} once per message and in seq order per
 * aggregate.
 *
 * <p>The handler gets the connection of the transaction that also moves the aggregate's position:
 * what it writes on that connection commits or rolls back with the position, so each message's
 * database effects happen exactly once. It may write outbox events on it too (a consumer that is
 * also a producer, with {@code JdbcOutbox.send(connection, ...)}). It must not commit, roll back or
 * close the connection.
 */
@FunctionalInterface
public interface InboxHandler {

  /**
   * Applies a message.
   *
   * @param connection the transaction's connection, auto-commit off; do not commit, roll back or
   *     close it
   * @param message the message
   * @throws Exception to refuse the message: the exception propagates, and the transaction must
   *     roll back (so the position does not move); a redelivery applies the message again
   */
  void handle(Connection connection, IncomingMessage message) throws Exception;
}
