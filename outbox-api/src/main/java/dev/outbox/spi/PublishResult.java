package dev.outbox.spi;

import dev.outbox.PublishException;
import java.util.Objects;
import java.util.UUID;

/**
 * What became of one message of a published batch.
 *
 * @param messageId the outbox id of the message
 * @param failure {@code null} when the broker acknowledged the message, otherwise why it did not
 */
public record PublishResult(UUID messageId, PublishException failure) {

  /** Checks the id. */
  public PublishResult {
    Objects.requireNonNull(messageId, "messageId");
  }

  /**
   * The broker acknowledged the message.
   *
   * @param messageId the outbox id
   * @return the result
   */
  public static PublishResult published(UUID messageId) {
    return new PublishResult(messageId, null);
  }

  /**
   * The broker did not take the message.
   *
   * @param messageId the outbox id
   * @param failure why, with whether a retry may help
   * @return the result
   */
  public static PublishResult failed(UUID messageId, PublishException failure) {
    return new PublishResult(messageId, Objects.requireNonNull(failure, "failure"));
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
