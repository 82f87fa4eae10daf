package dev.outbox.spi;

import dev.outbox.PublishException;
import java.util.Objects;
import java.util.UUID;

/**
 * What became of one message of a published batch.
 *
 * @param messageId the outbox id of the message
 * @param failure {@code null} when the broker acknowledged the message, otherwise why it did not
 * @param destination where the message went or was meant to go (topic, exchange, subject, entity),
 *     or {@code null} when the publisher does not say; used to tag metrics
 */
public record PublishResult(UUID messageId, PublishException failure, String destination) {

  /** Checks the id. */
  public PublishResult {
    Objects.requireNonNull(messageId, "messageId");
  }

  /**
   * A result that names no destination.
   *
   * @param messageId the outbox id
   * @param failure {@code null} on success
   */
  public PublishResult(UUID messageId, PublishException failure) {
    this(messageId, failure, failure == null ? null : failure.destination());
  }

  /**
   * The broker acknowledged the message.
   *
   * @param messageId the outbox id
   * @return the result
   */
  public static PublishResult published(UUID messageId) {
    return new PublishResult(messageId, null, null);
  }

  /**
   * The broker acknowledged the message sent to a destination.
   *
   * @param messageId the outbox id
   * @param destination the topic, exchange, subject or entity it went to
   * @return the result
   */
  public static PublishResult published(UUID messageId, String destination) {
    return new PublishResult(messageId, null, destination);
  }

  /**
   * The broker did not take the message.
   *
   * @param messageId the outbox id
   * @param failure why, with whether a retry may help, and the destination
   * @return the result
   */
  public static PublishResult failed(UUID messageId, PublishException failure) {
    Objects.requireNonNull(failure, "failure");
    return new PublishResult(messageId, failure, failure.destination());
  }

  /**
   * Whether the broker acknowledged the message.
   *
   * @return {@code true} on success
   */
  public boolean isPublished() {
    return failure == null;
  }
}
