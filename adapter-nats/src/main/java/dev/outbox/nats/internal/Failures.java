package dev.outbox.nats.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import io.nats.client.JetStreamApiException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns what went wrong with a JetStream publish into a {@link PublishException}. */
public final class Failures {

  private Failures() {}

  /**
   * The message was not sent because of what the message itself is (bad subject or header, too
   * large): no retry helps.
   *
   * @param message the message
   * @param subject its subject, or {@code null} when it could not be resolved
   * @param cause the client's exception
   * @return a permanent failure
   */
  public static PublishException rejectedByClient(
      OutboxMessage message, String subject, Exception cause) {
    return PublishException.permanent(
        message.id(), subject, "NATS cannot send this message: " + cause.getMessage(), cause);
  }

  /**
   * The acknowledgement future failed.
   *
   * @param message the message
   * @param subject its subject
   * @param failure what the future completed with
   * @return a retryable failure; "no stream for subject ..." when no stream captures the subject
   */
  public static PublishException ackFailed(
      OutboxMessage message, String subject, Throwable failure) {
    Throwable cause = unwrap(failure);
    if (isNoResponders(cause)) {
      return noStream(message, subject, cause);
    }
    String text =
        cause instanceof JetStreamApiException api
            ? "JetStream rejected the message: "
                + api.getErrorDescription()
                + " (error "
                + api.getApiErrorCode()
                + ')'
            : cause instanceof CancellationException
                ? "the publish was cancelled (connection closed?)"
                : "JetStream publish failed: " + cause.getMessage();
    return PublishException.retryable(message.id(), subject, text, cause);
  }

  /**
   * No stream captures the subject: JetStream answered with 503 no responders.
   *
   * @param message the message
   * @param subject its subject
   * @param cause the client's exception, or {@code null}
   * @return a retryable failure
   */
  public static PublishException noStream(OutboxMessage message, String subject, Throwable cause) {
    return PublishException.retryable(
        message.id(),
        subject,
        "no stream for subject "
            + subject
            + ": no JetStream stream captures it (the server answered 503 no responders);"
            + " create a stream whose subjects include it, or enable stream.create",
        cause);
  }

  /**
   * Whether a failure is JetStream's "no responders": nobody, so no stream, listens on the subject.
   *
   * @param failure the failure
   * @return {@code true} for a 503 / no responders status
   */
  public static boolean isNoResponders(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String text = String.valueOf(t.getMessage());
      if (text.contains("503")
          || text.toLowerCase(java.util.Locale.ROOT).contains("no responders")) {
        return true;
      }
    }
    return false;
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof ExecutionException
            || t instanceof CompletionException
            || t.getClass() == RuntimeException.class)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
