package dev.outbox.servicebus.internal;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import dev.outbox.PublishException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * Decides whether a failure of the SDK may pass on a retry. Any exception of a send fails the
 * messages in it; quota, size and authorization errors are not retryable, everything else
 * (unreachable namespace, timeouts, busy service, missing entity) is.
 */
public final class Failures {

  private static final Set<ServiceBusFailureReason> PERMANENT_REASONS =
      Set.of(
          ServiceBusFailureReason.QUOTA_EXCEEDED,
          ServiceBusFailureReason.MESSAGE_SIZE_EXCEEDED,
          ServiceBusFailureReason.UNAUTHORIZED);

  private static final Set<AmqpErrorCondition> PERMANENT_CONDITIONS =
      Set.of(
          AmqpErrorCondition.RESOURCE_LIMIT_EXCEEDED,
          AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED,
          AmqpErrorCondition.UNAUTHORIZED_ACCESS);

  private Failures() {}

  /**
   * Whether no retry can fix the failure.
   *
   * @param failure what the SDK threw
   * @return {@code true} for quota, size and authorization errors
   */
  public static boolean isPermanent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ServiceBusException sb && PERMANENT_REASONS.contains(sb.getReason())) {
        return true;
      }
      if (t instanceof AmqpException amqp
          && amqp.getErrorCondition() != null
          && PERMANENT_CONDITIONS.contains(amqp.getErrorCondition())) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * The failure of one message.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @param what what was being done ("send", "create batch")
   * @param failure what the SDK threw
   * @return a retryable or permanent publish exception
   */
  public static PublishException of(UUID id, String entity, String what, Throwable failure) {
    boolean permanent = isPermanent(failure);
    String message = what + " failed: " + describe(failure);
    return permanent
        ? PublishException.permanent(id, entity, message, failure)
        : PublishException.retryable(id, entity, message, failure);
  }

  /**
   * The failure of a message whose send completed with an error. When the SDK gave up waiting for
   * Service Bus (its try timeout), the message may have been stored all the same, and it says so.
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @param failure what the send completed with
   * @return a retryable or permanent publish exception
   */
  public static PublishException sendFailed(UUID id, String entity, Throwable failure) {
    if (!isTimeout(failure)) {
      return of(id, entity, "send", failure);
    }
    return new PublishException(
        id,
        entity,
        !isPermanent(failure),
        "send failed: "
            + describe(failure)
            + "; no answer within the SDK's try timeout, so Service Bus may or may not have the"
            + " message (duplicate detection on the entity drops a resend)",
        failure);
  }

  /**
   * A retryable failure for a message that was not sent: the publish timeout ran out before its
   * send could start (no connection or batch in time, or an earlier send to its entity still
   * unanswered).
   *
   * @param id the outbox id
   * @param entity the queue or topic
   * @return the exception
   */
  public static PublishException notSent(UUID id, String entity) {
    return PublishException.retryable(
        id,
        entity,
        "not sent: the publish timeout ran out before its send could start (Service Bus"
            + " unreachable or slow)",
        new TimeoutException());
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

  /**
   * One line naming the exception type and its message, and the innermost cause.
   *
   * @param failure the exception
   * @return the description
   */
  public static String describe(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    if (root != failure) {
      text += " (cause " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return text;
  }
}
