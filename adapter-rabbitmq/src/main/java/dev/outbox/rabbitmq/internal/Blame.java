package dev.outbox.rabbitmq.internal;

import dev.outbox.PublishException;
import java.util.UUID;

/**
 * Whose fault a failed publish is, and for the message's fault whether another attempt may help:
 * the verdicts of {@link Faults}, turned into the {@link PublishException} the processor reads.
 */
enum Blame {

  /**
   * The broker or the connection to it: unreachable, lost, refusing the credentials or the
   * permissions on the exchange, blocking publishers, not answering. Counts no attempt.
   */
  BROKER,

  /** The message, and another attempt may succeed: returned, nacked, too large, no exchange. */
  MESSAGE_RETRYABLE,

  /** The message, and no attempt can succeed: it cannot be encoded, or its topic is forbidden. */
  MESSAGE_PERMANENT;

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
      case MESSAGE_PERMANENT -> PublishException.permanent(messageId, exchange, reason, cause);
    };
  }
}
