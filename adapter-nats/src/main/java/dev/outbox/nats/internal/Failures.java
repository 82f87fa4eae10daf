package dev.outbox.nats.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import io.nats.client.JetStreamApiException;
import java.io.IOException;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Says whose fault a failed JetStream publish is, and in what words. Pure functions of what the
 * client reported and what the adapter found out around it.
 *
 * <p>{@linkplain PublishException.Fault#BROKER The broker's}: no connection, a connection closed or
 * lost, credentials refused, no answer at all within the timeout, JetStream not available (not
 * enabled, no responders for the JetStream API, a JetStream error with a 5xx code such as
 * "insufficient resources" or "JetStream system temporarily unavailable"), and a stream that
 * captures the subject but does not answer (no leader). {@linkplain PublishException.Fault#MESSAGE
 * The message's}: no stream captures its subject while JetStream answers, it is larger than the
 * server's {@code max_payload} or invalid for the client (permanent), and a JetStream error with a
 * 4xx code: above the stream's {@code max_msg_size}, wrong last sequence, duplicate conflicts.
 */
public final class Failures {

  private static final String NO_RESPONDERS = "no responders";

  private Failures() {}

  /**
   * Why a publish failed, without the message it failed for.
   *
   * @param text what went wrong, for the operator
   * @param fault whose fault it is
   */
  public record Reason(String text, PublishException.Fault fault) {

    /**
     * A failure of the broker or the connection.
     *
     * @param text what went wrong
     * @return the reason
     */
    public static Reason broker(String text) {
      return new Reason(text, PublishException.Fault.BROKER);
    }

    /**
     * A retryable failure of the message.
     *
     * @param text what went wrong
     * @return the reason
     */
    public static Reason message(String text) {
      return new Reason(text, PublishException.Fault.MESSAGE);
    }

    /**
     * The exception for one message.
     *
     * @param messageId the message's outbox id
     * @param subject its subject, or {@code null}
     * @param cause the client's exception, or {@code null}
     * @return a broker fault, or a retryable failure of the message
     */
    public PublishException toException(UUID messageId, String subject, Throwable cause) {
      return fault == PublishException.Fault.BROKER
          ? PublishException.brokerUnavailable(messageId, subject, text, cause)
          : PublishException.retryable(messageId, subject, text, cause);
    }
  }

  /**
   * The message was not sent because of what the message itself is (bad subject or header, larger
   * than the server's {@code max_payload}): no retry helps.
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
   * The client did not take a message for sending. An {@link IllegalStateException} is the
   * connection's state (closed, draining, reconnect buffer full): the broker's fault.
   *
   * @param message the message
   * @param subject its subject, or {@code null}
   * @param cause the client's exception
   * @return the failure
   */
  public static PublishException notTaken(
      OutboxMessage message, String subject, RuntimeException cause) {
    return unexpected(cause).toException(message.id(), subject, cause);
  }

  /**
   * An exception the publisher did not expect around a batch.
   *
   * @param cause the exception
   * @return a broker fault for the connection's state ({@link IllegalStateException}), otherwise a
   *     retryable failure of the message
   */
  public static Reason unexpected(RuntimeException cause) {
    if (cause instanceof IllegalStateException) {
      return Reason.broker("the NATS connection cannot send now: " + cause.getMessage());
    }
    return Reason.message("NATS publish failed: " + cause);
  }

  /**
   * The acknowledgement future failed with something other than "no responders" (see {@link
   * #noResponders}).
   *
   * @param message the message
   * @param subject its subject
   * @param failure what the future completed with
   * @param othersAcknowledged whether another message of the same batch was acknowledged
   * @return the failure: a broker fault for no answer (unless others got one), for a closed
   *     connection and for a 5xx JetStream error; a retryable failure of the message otherwise
   */
  public static PublishException ackFailed(
      OutboxMessage message, String subject, Throwable failure, boolean othersAcknowledged) {
    Throwable cause = unwrap(failure);
    return ackReason(cause, othersAcknowledged).toException(message.id(), subject, cause);
  }

  /**
   * Whose fault a failed acknowledgement is, and its words.
   *
   * @param cause the unwrapped failure
   * @param othersAcknowledged whether another message of the same batch was acknowledged
   * @return the reason
   */
  static Reason ackReason(Throwable cause, boolean othersAcknowledged) {
    if (cause instanceof JetStreamApiException api) {
      return apiError(api);
    }
    if (isNoAnswer(cause)) { // before IllegalStateException: a CancellationException is one
      String text = "JetStream did not acknowledge the message in time (" + describe(cause) + ')';
      return othersAcknowledged
          ? Reason.message(text + " while other messages of the batch were acknowledged")
          : Reason.broker(text + "; the connection or the server is down");
    }
    if (cause instanceof IllegalStateException) {
      return Reason.broker("the NATS connection was lost: " + cause.getMessage());
    }
    return Reason.message("JetStream publish failed: " + cause.getMessage());
  }

  /**
   * A JetStream error answer. The server's own code says whose fault it is: 5xx (JetStream not
   * enabled or temporarily unavailable, insufficient resources, stream offline, the store failed)
   * is the broker's, 4xx (above {@code max_msg_size}, wrong last sequence or message id, duplicate
   * conflict) the message's.
   *
   * @param api the error
   * @return the reason
   */
  static Reason apiError(JetStreamApiException api) {
    String error = api.getErrorDescription() + " (error " + api.getApiErrorCode() + ')';
    if (api.getErrorCode() >= 500) {
      return Reason.broker(
          "JetStream cannot store messages now: "
              + error
              + "; it comes back by itself or needs the operator (resources, cluster)");
    }
    return Reason.message("JetStream rejected the message: " + error);
  }

  /**
   * The acknowledgement was JetStream's "503 no responders": nobody listens on the subject. What
   * the stream lookup found decides whose fault that is.
   *
   * @param message the message
   * @param subject its subject
   * @param lookup what JetStream said about the streams for the subject
   * @param cause the client's exception, or {@code null}
   * @return a retryable failure of the message when no stream captures the subject, a broker fault
   *     when JetStream is not available or the stream does not answer
   */
  public static PublishException noResponders(
      OutboxMessage message, String subject, StreamLookup lookup, Throwable cause) {
    return noRespondersReason(subject, lookup).toException(message.id(), subject, cause);
  }

  /**
   * The words and fault for "no responders" on a subject.
   *
   * @param subject the subject
   * @param lookup what JetStream said about the streams for it
   * @return the reason
   */
  static Reason noRespondersReason(String subject, StreamLookup lookup) {
    return switch (lookup.kind()) {
      case NO_STREAM ->
          Reason.message(
              "no stream for subject "
                  + subject
                  + ": no JetStream stream captures it (the server answered 503 no responders);"
                  + " create a stream whose subjects include it, or enable stream.create");
      case STREAM_NOT_ANSWERING ->
          Reason.broker(
              "stream "
                  + lookup.detail()
                  + " captures subject "
                  + subject
                  + " but did not answer (503 no responders): it has no leader or is offline");
      case JETSTREAM_UNAVAILABLE ->
          Reason.broker(
              "JetStream is not available (503 no responders for subject "
                  + subject
                  + ", and the JetStream API did not answer: "
                  + lookup.detail()
                  + "); start the server with JetStream enabled, or wait for it");
    };
  }

  /**
   * The server refused the credentials: the words an operator needs, never the secret.
   *
   * @param servers the servers, safe to print
   * @param login who the publisher tried to log in as
   * @param serverError what the server said, for example {@code Authorization Violation}
   * @return for example {@code NATS at nats://host:4222 refused the credentials of user 'app'
   *     (Authorization Violation); fix the user or password}
   */
  public static String credentialsRefused(String servers, Login login, String serverError) {
    String said = " (" + serverError + ')';
    return switch (login.kind()) {
      case USER ->
          "NATS at "
              + servers
              + " refused the credentials of user '"
              + login.user()
              + "'"
              + said
              + "; fix the user or password";
      case TOKEN -> "NATS at " + servers + " refused the token" + said + "; fix the token";
      case CREDENTIALS_FILE ->
          "NATS at "
              + servers
              + " refused the credentials of the credentials file"
              + said
              + "; fix the credentials file";
      case NONE ->
          "NATS at "
              + servers
              + " requires credentials"
              + said
              + "; set a user and password, a token or a credentials file";
    };
  }

  /**
   * Whether the server's error text refuses the credentials: {@code Authorization Violation},
   * {@code User Authentication Expired} or {@code Revoked}, {@code Authentication Timeout}. A
   * {@code Permissions Violation} (a subject the user may not use) is not.
   *
   * @param serverError the error text, or {@code null}
   * @return {@code true} when the credentials were refused
   */
  public static boolean isCredentialsRefusal(String serverError) {
    if (serverError == null) {
      return false;
    }
    String text = serverError.toLowerCase(Locale.ROOT);
    return text.contains("authorization violation") || text.contains("authentication");
  }

  /**
   * Whether a failure is JetStream's "no responders": nobody listens on the subject. A JetStream
   * error answer is not, even with code 503: somebody answered.
   *
   * @param failure the failure
   * @return {@code true} for a 503 no responders status
   */
  public static boolean isNoResponders(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JetStreamApiException) {
        return false;
      }
      if (String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT).contains(NO_RESPONDERS)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a failure means that no answer came: the client timed out, or cancelled the request
   * because the connection went away before the answer.
   *
   * @param cause the unwrapped failure
   * @return {@code true} for no answer
   */
  static boolean isNoAnswer(Throwable cause) {
    return cause instanceof TimeoutException
        || cause instanceof CancellationException
        || cause instanceof IOException
            && String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT).contains("timeout");
  }

  private static String describe(Throwable cause) {
    if (cause instanceof CancellationException) {
      return "the client gave up waiting"
          + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  /**
   * The failure inside the wrappers of futures.
   *
   * @param failure what a future completed with
   * @return the client's own exception
   */
  static Throwable unwrap(Throwable failure) {
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
