package dev.outbox;

import java.util.UUID;

/**
 * A broker did not accept a message, and whose fault that is.
 *
 * <p>A failure of {@linkplain Fault#MESSAGE the message} counts an attempt against it: a retryable
 * one (a negative acknowledgement, a send that timed out while other sends got through) is tried
 * again with backoff, a permanent one (too large, unroutable, refused for its content) goes to the
 * dead letters at once. A failure of {@linkplain Fault#BROKER the broker or the connection to it}
 * (unreachable, connection lost, credentials or permissions refused, no leader, every send timing
 * out) counts nothing against any message: the processor stops sending, keeps the messages due, and
 * probes the broker until it takes a message again.
 */
public class PublishException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /** Whose fault a failed publish is: it decides whether the failure counts as an attempt. */
  public enum Fault {
    /**
     * The message: it is too large, cannot be routed, or the broker refused it for what it is. It
     * counts an attempt; {@link PublishException#isRetryable()} says whether another may succeed.
     */
    MESSAGE,
    /**
     * The broker or the connection to it: it cannot be reached, the connection was lost, it refused
     * the credentials or the permissions, it has no leader, or no send gets an answer. No message
     * is to blame: none counts an attempt, none is dead-lettered for it.
     */
    BROKER
  }

  private final UUID messageId;
  private final String destination;
  private final boolean retryable;
  private final Fault fault;
  private final String reason;

  /**
   * Creates a publish failure.
   *
   * @param messageId the outbox id of the message, or {@code null} when the whole batch failed
   * @param destination where it was sent (topic, exchange, entity, subject), or {@code null}
   * @param retryable whether another attempt may succeed
   * @param message what went wrong
   * @param cause the broker client's exception, or {@code null}
   */
  public PublishException(
      UUID messageId, String destination, boolean retryable, String message, Throwable cause) {
    this(messageId, destination, retryable ? null : Fault.MESSAGE, message, cause);
  }

  /**
   * Creates a publish failure with its fault.
   *
   * @param messageId the outbox id of the message, or {@code null} when the whole batch failed
   * @param destination where it was sent (topic, exchange, entity, subject), or {@code null}
   * @param fault whose fault it is; {@code null} for a retryable failure of the message
   * @param message what went wrong
   * @param cause the broker client's exception, or {@code null}
   */
  private PublishException(
      UUID messageId, String destination, Fault fault, String message, Throwable cause) {
    super(describe(messageId, destination, message), cause);
    this.messageId = messageId;
    this.destination = destination;
    this.reason = message == null ? "publish failed" : message;
    this.retryable = fault != Fault.MESSAGE;
    this.fault = fault == null ? Fault.MESSAGE : fault;
  }

  /**
   * A retryable failure.
   *
   * @param messageId the outbox id, or {@code null}
   * @param destination the destination, or {@code null}
   * @param message what went wrong
   * @param cause the cause, or {@code null}
   * @return the exception
   */
  public static PublishException retryable(
      UUID messageId, String destination, String message, Throwable cause) {
    return new PublishException(messageId, destination, true, message, cause);
  }

  /**
   * A failure that no retry can fix.
   *
   * @param messageId the outbox id, or {@code null}
   * @param destination the destination, or {@code null}
   * @param message what went wrong
   * @param cause the cause, or {@code null}
   * @return the exception
   */
  public static PublishException permanent(
      UUID messageId, String destination, String message, Throwable cause) {
    return new PublishException(messageId, destination, false, message, cause);
  }

  /**
   * A failure of the broker or the connection to it, not of the message: the broker cannot be
   * reached, the connection was lost, it refused the credentials or the permissions, it has no
   * leader, or no send gets an answer. It counts no attempt; the processor holds every message
   * until the broker takes one again. Say in {@code message} what the operator must fix when it is
   * not a matter of waiting ({@code "RabbitMQ refused the credentials of user app"}).
   *
   * @param messageId the outbox id, or {@code null}
   * @param destination the destination, or {@code null}
   * @param message what went wrong
   * @param cause the cause, or {@code null}
   * @return the exception
   */
  public static PublishException brokerUnavailable(
      UUID messageId, String destination, String message, Throwable cause) {
    return new PublishException(messageId, destination, Fault.BROKER, message, cause);
  }

  /**
   * What went wrong, as the adapter said it, without the message id and destination that {@link
   * #getMessage()} adds: the same for every message of a batch the broker failed.
   *
   * @return the reason
   */
  public String reason() {
    return reason;
  }

  /**
   * Whose fault the failure is.
   *
   * @return {@link Fault#BROKER} for a broker or connection that fails every message, {@link
   *     Fault#MESSAGE} otherwise
   */
  public Fault fault() {
    return fault;
  }

  /**
   * Whether the broker or the connection failed, not the message: see {@link Fault#BROKER}.
   *
   * @return {@code true} when the failure counts no attempt
   */
  public boolean isBrokerFault() {
    return fault == Fault.BROKER;
  }

  /**
   * The message concerned.
   *
   * @return the outbox id, or {@code null} when the failure concerns a whole batch
   */
  public UUID messageId() {
    return messageId;
  }

  /**
   * The destination the message was sent to.
   *
   * @return the topic, exchange, entity or subject, or {@code null} when unknown
   */
  public String destination() {
    return destination;
  }

  /**
   * Whether another attempt may succeed.
   *
   * @return {@code false} sends the message to the dead letters without further attempts; always
   *     {@code true} for a {@linkplain #isBrokerFault() broker fault}
   */
  public boolean isRetryable() {
    return retryable;
  }

  private static String describe(UUID messageId, String destination, String message) {
    StringBuilder text = new StringBuilder(message == null ? "publish failed" : message);
    if (messageId != null) {
      text.append(" [message ").append(messageId);
      if (destination != null) {
        text.append(" to ").append(destination);
      }
      text.append(']');
    } else if (destination != null) {
      text.append(" [destination ").append(destination).append(']');
    }
    return text.toString();
  }
}
