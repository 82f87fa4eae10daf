package dev.outbox.inbox.internal;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxException;
import dev.outbox.inbox.InboxHandler;
import java.sql.Connection;
import java.sql.SQLException;

/** Runs a consumer's handler: its unchecked and SQL exceptions pass, a checked one is wrapped. */
final class Handlers {

  private Handlers() {}

  static void run(
      InboxHandler handler, Connection connection, IncomingMessage message, String source)
      throws SQLException {
    try {
      handler.handle(connection, message);
    } catch (SQLException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new OutboxException(
          "The handler of inbox '"
              + source
              + "' failed on "
              + message
              + ": "
              + e
              + ". Roll the transaction back; the message applies when it is delivered again",
          e);
    }
  }
}
