package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ShutdownSignalException;

/** Reads why a channel or connection closed. */
final class ShutdownReasons {

  private ShutdownReasons() {}

  /** A short description: the reply code and text, or the exception's message. */
  static String describe(ShutdownSignalException cause) {
    if (cause == null) {
      return "closed";
    }
    Method reason = cause.getReason();
    if (reason instanceof AMQP.Channel.Close close) {
      return "channel closed by the broker: " + close.getReplyCode() + ' ' + close.getReplyText();
    }
    if (reason instanceof AMQP.Connection.Close close) {
      return (cause.isInitiatedByApplication()
              ? "connection closed: "
              : "connection closed by the broker: ")
          + close.getReplyCode()
          + ' '
          + close.getReplyText();
    }
    Throwable underlying = cause.getCause();
    return underlying != null
        ? "connection lost: " + underlying
        : String.valueOf(cause.getMessage());
  }
}
