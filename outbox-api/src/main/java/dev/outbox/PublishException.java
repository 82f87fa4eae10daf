package dev.outbox;

import java.util.UUID;

/**
 * A broker did not accept a message. Retryable failures (timeouts, broker unavailable, negative
 * acknowledgements) are tried again with backoff; non-retryable ones (authorization, message too
 * large, ...) go to the dead letters at once.
 */
public class PublishException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final UUID messageId;
  private final String destination;
  private final boolean retryable;

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
    super(describe(messageId, destination, message), cause);
    this.messageId = messageId;
    this.destination = destination;
    this.retryable = retryable;
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
   * @return {@code false} sends the message to the dead letters without further attempts
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
