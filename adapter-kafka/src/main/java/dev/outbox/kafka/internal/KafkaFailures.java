package dev.outbox.kafka.internal;

import dev.outbox.PublishException;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Turns what the Kafka producer reports into a {@link PublishException} that says whether another
 * attempt may succeed.
 *
 * <ul>
 *   <li>Not retryable: authorization, records or batches too large, invalid records or topic names,
 *       serialization, unsupported versions and invalid configuration. No retry can fix them.
 *   <li>Retryable: everything else, notably timeouts (broker unreachable, topic missing from the
 *       metadata, no acknowledgement in time), every retriable Kafka error, authentication
 *       (credentials are often fixed while the rows wait), interrupts, and a closed producer.
 * </ul>
 */
public final class KafkaFailures {

  private KafkaFailures() {}

  /**
   * Classifies a failure.
   *
   * @param messageId the message concerned
   * @param topic the topic it was sent to, or {@code null}
   * @param failure what the producer threw or completed the send with
   * @return the failure to report
   */
  public static PublishException classify(UUID messageId, String topic, Throwable failure) {
    Throwable cause = unwrap(failure);
    boolean retryable = isRetryable(cause);
    return new PublishException(messageId, topic, retryable, describe(cause), cause);
  }

  /**
   * Whether another attempt may succeed after this failure.
   *
   * @param failure the unwrapped failure
   * @return {@code false} for failures no retry can fix
   */
  public static boolean isRetryable(Throwable failure) {
    if (failure instanceof AuthenticationException) {
      return true;
    }
    return !(failure instanceof AuthorizationException
        || failure instanceof RecordTooLargeException
        || failure instanceof RecordBatchTooLargeException
        || failure instanceof InvalidRecordException
        || failure instanceof InvalidTopicException
        || failure instanceof SerializationException
        || failure instanceof UnsupportedVersionException
        || failure instanceof InvalidConfigurationException);
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable current = failure;
    while ((current instanceof ExecutionException || current instanceof CompletionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private static String describe(Throwable cause) {
    if (cause instanceof TimeoutException && cause.getMessage() != null) {
      String text = cause.getMessage();
      if (text.contains("not present in metadata")) {
        return "Kafka has no metadata for the topic (it does not exist and auto-creation is off,"
            + " or the broker is unreachable): "
            + text;
      }
    }
    return "Kafka send failed: " + cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }
}
