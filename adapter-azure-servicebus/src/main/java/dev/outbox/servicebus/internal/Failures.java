package dev.outbox.servicebus.internal;

import dev.outbox.PublishException;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * Turns failures of the SDK into {@link PublishException}s, blamed as {@link Blame} decides: a
 * failure of Service Bus or the connection is a {@linkplain PublishException#isBrokerFault() broker
 * fault} (it counts no attempt), a failure of the message is retryable or permanent. When Service
 * Bus refuses the credentials, the exception says so and names the key (its {@code
 * SharedAccessKeyName}) or the credential, never the key itself or the connection string.
 */
public final class Failures {

  private final String credentials;
  private final String fix;

  private Failures(String credentials, String fix) {
    this.credentials = credentials;
    this.fix = fix;
  }

  /**
   * The failures of a publisher with these options.
   *
   * @param options the options, whose connection string or credential names the credentials
   * @return the failures
   */
  public static Failures forOptions(ServiceBusPublisherOptions options) {
    if (options.connectionString() == null) {
      return new Failures(
          "the credential "
              + options.credential().getClass().getSimpleName()
              + " for namespace "
              + options.namespace(),
          "fix the credential or give its identity the Azure Service Bus Data Sender role");
    }
    String keyName = field(options.connectionString(), "SharedAccessKeyName");
    return new Failures(
        keyName == null ? "the connection string" : "key name '" + keyName + "'",
        "fix the connection string (its SharedAccessKey, or the Send right of that key)");
  }

  /**
   * The failure of one message.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @param what what was being done ("send", "create batch")
   * @param failure what the SDK threw
   * @return a broker fault, or a retryable or permanent failure of the message
   */
  public PublishException of(UUID id, String entity, String what, Throwable failure) {
    return blamed(id, entity, Blame.of(failure), what, failure, "");
  }

  /**
   * The failure of a message whose send completed with an error. When the SDK gave up waiting for
   * Service Bus (its try timeout), the message may have been stored all the same, and it says so.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @param failure what the send completed with
   * @return a broker fault, or a retryable or permanent failure of the message
   */
  public PublishException sendFailed(UUID id, String entity, Throwable failure) {
    if (!isTimeout(failure)) {
      return of(id, entity, "send", failure);
    }
    return blamed(
        id,
        entity,
        Blame.of(failure),
        "send",
        failure,
        "; no answer within the SDK's try timeout, so Service Bus may or may not have the"
            + " message (duplicate detection on the entity drops a resend)");
  }

  /**
   * A message that was not sent because its entity's earlier send failed for the broker's fault in
   * the same call: the same fault, without trying.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @param earlier the failure of the earlier send
   * @return a broker fault
   */
  public static PublishException notSentAfter(UUID id, String entity, PublishException earlier) {
    return PublishException.brokerUnavailable(
        id,
        entity,
        "not sent: an earlier send to " + entity + " in this call failed: " + earlier.reason(),
        earlier.getCause());
  }

  /**
   * A broker fault for a message that was not sent: the publish timeout ran out before its send
   * could start (no connection or batch in time, or an earlier send to its entity still
   * unanswered). The message is not to blame.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @return the exception
   */
  public static PublishException notSent(UUID id, String entity) {
    return PublishException.brokerUnavailable(
        id,
        entity,
        "not sent: the publish timeout ran out before its send could start (Service Bus"
            + " unreachable or slow)",
        new TimeoutException(
            "no connection to Service Bus, or no answer from it, before the publish timeout"));
  }

  /**
   * The exception for a blamed failure: "{@code what} failed", the SDK's description (for refused
   * credentials: what was refused and what to fix; the SDK's words are in the cause), then {@code
   * suffix}.
   */
  private PublishException blamed(
      UUID id, String entity, Blame blame, String what, Throwable failure, String suffix) {
    if (blame == Blame.CREDENTIALS) {
      return PublishException.brokerUnavailable(
          id,
          entity,
          what
              + " failed: Service Bus refused the credentials of "
              + credentials
              + " (UNAUTHORIZED); "
              + fix
              + suffix,
          failure);
    }
    String message = what + " failed: " + describe(failure) + suffix;
    return switch (blame) {
      case BROKER ->
          PublishException.brokerUnavailable(
              id,
              entity,
              what + " failed: Service Bus unavailable: " + describe(failure) + suffix,
              failure);
      case MESSAGE_PERMANENT -> PublishException.permanent(id, entity, message, failure);
      default -> PublishException.retryable(id, entity, message, failure);
    };
  }

  private static Throwable innermost(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static boolean isTimeout(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The value of a {@code Key=value;} field of a connection string, or {@code null}. */
  private static String field(String connectionString, String key) {
    for (String part : connectionString.split(";")) {
      int equals = part.indexOf('=');
      if (equals > 0 && part.substring(0, equals).trim().equalsIgnoreCase(key)) {
        String value = part.substring(equals + 1).trim();
        return value.isEmpty() ? null : value;
      }
    }
    return null;
  }

  /**
   * One line naming the exception type and its message, and the innermost cause.
   *
   * @param failure the exception
   * @return the description
   */
  public static String describe(Throwable failure) {
    Throwable root = innermost(failure);
    String text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    if (root != failure) {
      text += " (cause " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return text;
  }
}
