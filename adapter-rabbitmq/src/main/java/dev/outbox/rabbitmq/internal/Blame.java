package dev.outbox.rabbitmq.internal;

import dev.outbox.PublishException;
import java.util.UUID;

/**
 * Whose fault a failed publish is: the verdicts of {@link Faults}, turned into the {@link
 * PublishException} the processor reads. (A message that cannot be encoded is a permanent failure
 * built where it is found, in {@link Outgoing}.)
 */
enum Blame {

  /**
   * The broker or the connection to it: unreachable, lost, refusing the credentials or a
   * permission, nacking, blocking publishers, not answering. Counts no attempt.
   */
  BROKER,

  /** The message, and another attempt may succeed: returned, too large, no exchange. */
  MESSAGE_RETRYABLE;

  /**
   * The failure of one message.
   *
   * @param messageId the outbox id
   * @param exchange where it was sent
   * @param reason what went wrong, in words an operator acts on
   * @param cause the client's exception, or {@code null}
   * @return the exception with this fault
   */
  PublishException failure(UUID messageId, String exchange, String reason, Throwable cause) {
    return switch (this) {
      case BROKER -> PublishException.brokerUnavailable(messageId, exchange, reason, cause);
      case MESSAGE_RETRYABLE -> PublishException.retryable(messageId, exchange, reason, cause);
    };
  }
}
