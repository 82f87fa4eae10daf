package dev.outbox.spi;

import dev.outbox.PublishException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

/**
 * What became of one message of a published batch.
 *
 * <p>Besides acknowledged and failed, a message can be <em>uncertain</em>: the publish timeout ran
 * out while the broker client still holds the send (Kafka's buffer, an unconfirmed RabbitMQ
 * publish, a JetStream ack not yet in), so it may still land. Its {@link #finalOutcome()} completes
 * once the client reports the final answer. The processor keeps the message's aggregate leased and
 * sends nothing of it again until then (or until a hard cap of twice the publish timeout), so no
 * message is in flight twice at once.
 *
 * @param messageId the outbox id of the message
 * @param failure {@code null} when the broker acknowledged the message, otherwise why it did not
 *     (for an uncertain message: that no answer came in time)
 * @param destination where the message went or was meant to go (topic, exchange, subject, entity),
 *     or {@code null} when the publisher does not say; used to tag metrics
 * @param finalOutcome for an uncertain message, the final result once the client reports it (never
 *     uncertain itself); {@code null} for a final result
 */
public record PublishResult(
    UUID messageId,
    PublishException failure,
    String destination,
    CompletionStage<PublishResult> finalOutcome) {

  /** Checks the components. */
  public PublishResult {
    Objects.requireNonNull(messageId, "messageId");
    if (finalOutcome != null && failure == null) {
      throw new IllegalArgumentException("an uncertain result carries the failure of its timeout");
    }
  }

  /**
   * A final result.
   *
   * @param messageId the outbox id
   * @param failure {@code null} on success
   * @param destination the topic, exchange, subject or entity, or {@code null}
   */
  public PublishResult(UUID messageId, PublishException failure, String destination) {
    this(messageId, failure, destination, null);
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
   * No final answer came within the publish timeout, but the broker client still holds the send: it
   * may still land. The processor waits for {@code finalOutcome} before it decides anything about
   * the message's aggregate.
   *
   * @param messageId the outbox id
   * @param destination the topic, exchange, subject or entity, or {@code null}
   * @param waited how long the publisher waited, for the message
   * @param finalOutcome completes with the final result (acknowledged or failed) when the client
   *     reports it; it must complete, exceptionally at worst
   * @return the result
   */
  public static PublishResult uncertain(
      UUID messageId,
      String destination,
      Duration waited,
      CompletionStage<PublishResult> finalOutcome) {
    Objects.requireNonNull(finalOutcome, "finalOutcome");
    return new PublishResult(
        messageId,
        PublishException.retryable(
            messageId,
            destination,
            "no final answer from the broker client within " + waited + "; the send may still land",
            null),
        destination,
        finalOutcome);
  }

  /**
   * Whether the send may still land: see {@link #uncertain}.
   *
   * @return {@code true} when a final outcome is still to come
   */
  public boolean isUncertain() {
    return finalOutcome != null;
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
