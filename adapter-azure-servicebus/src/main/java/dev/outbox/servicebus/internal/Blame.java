package dev.outbox.servicebus.internal;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Whose fault a failure of the SDK is: Service Bus or the connection to it (no message is to blame,
 * none counts an attempt), or the message (it counts an attempt, and may go to the dead letters).
 *
 * <p>The SDK wraps what Service Bus answered in a {@link ServiceBusException} whose {@linkplain
 * ServiceBusException#getReason() reason} it derives from the {@link AmqpErrorCondition} of its
 * cause; a condition it has no reason for becomes {@code GENERAL_ERROR}. So the cause chain is read
 * from the outside in, and the first exception that decides wins:
 *
 * <ul>
 *   <li>{@link #CREDENTIALS}: {@code UNAUTHORIZED} ({@code amqp:unauthorized-access}, which is what
 *       the {@code $cbs} node's 401 for a token signed with a wrong key, or a key without the Send
 *       right, becomes).
 *   <li>{@link #BROKER}: {@code SERVICE_COMMUNICATION_ERROR} ({@code proton:io}: connection
 *       refused, reset, closed), {@code SERVICE_BUSY}, {@code SERVICE_TIMEOUT}, {@code
 *       QUOTA_EXCEEDED} ({@code amqp:resource-limit-exceeded}: the entity is full or the namespace
 *       has no connection or link to spare, which no message causes); the conditions {@code
 *       amqp:connection:forced}, {@code amqp:connection:framing-error}, {@code
 *       amqp:link:detach-forced}, {@code amqp:internal-error} and the redirects; an {@link
 *       AmqpException} the SDK marks transient without a condition (its own "connection closed",
 *       "no response from the CBS node"); a {@link TimeoutException}, a timed-out blocking wait or
 *       an {@link IOException} anywhere in the chain (nothing got through in time, the socket
 *       failed); the SDK's client closed or its scheduler shut down; {@code
 *       MESSAGING_ENTITY_DISABLED} (an entity disabled for maintenance: its backlog waits rather
 *       than being dead-lettered).
 *   <li>{@link #MESSAGE_PERMANENT}: {@code MESSAGE_SIZE_EXCEEDED} ({@code
 *       amqp:link:message-size-exceeded}): the message is larger than the entity takes.
 *   <li>{@link #MESSAGE_RETRYABLE}: {@code MESSAGING_ENTITY_NOT_FOUND} ({@code amqp:not-found}: the
 *       entity does not exist, the message is unroutable; it may be created later), an argument
 *       error (the broker refused what the message carries), and anything not named above, as
 *       before.
 * </ul>
 */
public enum Blame {

  /** Service Bus refused the credentials or their rights: a broker fault the operator must fix. */
  CREDENTIALS,

  /** Service Bus or the connection failed: a broker fault that passes when it is back. */
  BROKER,

  /** The message can never be sent as it is (too large). */
  MESSAGE_PERMANENT,

  /** The message was refused, or its entity cannot take it now; another attempt may succeed. */
  MESSAGE_RETRYABLE;

  private static final Set<AmqpErrorCondition> BROKER_CONDITIONS =
      EnumSet.of(
          AmqpErrorCondition.PROTON_IO,
          AmqpErrorCondition.CONNECTION_FORCED,
          AmqpErrorCondition.CONNECTION_FRAMING_ERROR,
          AmqpErrorCondition.CONNECTION_REDIRECT,
          AmqpErrorCondition.LINK_REDIRECT,
          AmqpErrorCondition.LINK_DETACH_FORCED,
          AmqpErrorCondition.INTERNAL_ERROR,
          AmqpErrorCondition.SERVER_BUSY_ERROR,
          AmqpErrorCondition.TIMEOUT_ERROR,
          AmqpErrorCondition.RESOURCE_LIMIT_EXCEEDED,
          AmqpErrorCondition.ENTITY_DISABLED_ERROR);

  private static final Set<AmqpErrorCondition> MESSAGE_CONDITIONS =
      EnumSet.of(
          AmqpErrorCondition.NOT_FOUND,
          AmqpErrorCondition.ARGUMENT_ERROR,
          AmqpErrorCondition.ARGUMENT_OUT_OF_RANGE_ERROR);

  private static final Set<ServiceBusFailureReason> BROKER_REASONS =
      Set.of(
          ServiceBusFailureReason.SERVICE_COMMUNICATION_ERROR,
          ServiceBusFailureReason.SERVICE_BUSY,
          ServiceBusFailureReason.SERVICE_TIMEOUT,
          ServiceBusFailureReason.QUOTA_EXCEEDED,
          ServiceBusFailureReason.MESSAGING_ENTITY_DISABLED);

  private static final Set<ServiceBusFailureReason> MESSAGE_REASONS =
      Set.of(ServiceBusFailureReason.MESSAGING_ENTITY_NOT_FOUND);

  /**
   * Whether the failure is the broker's (or its credentials'), not the message's.
   *
   * @return {@code true} for {@link #CREDENTIALS} and {@link #BROKER}
   */
  public boolean isBrokerFault() {
    return this == CREDENTIALS || this == BROKER;
  }

  /**
   * Whose fault a failure is.
   *
   * @param failure what the SDK threw or completed a send with
   * @return the blame, {@link #MESSAGE_RETRYABLE} when nothing in the chain decides
   */
  public static Blame of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      Blame blame = decide(t);
      if (blame != null) {
        return blame;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return MESSAGE_RETRYABLE;
  }

  private static Blame decide(Throwable t) {
    if (t instanceof ServiceBusException sb) {
      return ofReason(sb.getReason());
    }
    if (t instanceof AmqpException amqp) {
      AmqpErrorCondition condition = amqp.getErrorCondition();
      if (condition == null) {
        return amqp.isTransient() ? BROKER : null;
      }
      return ofCondition(condition);
    }
    if (t instanceof TimeoutException
        || t instanceof IOException
        || t instanceof RejectedExecutionException
        || isBlockingTimeout(t)
        || isDisposed(t)) {
      return BROKER;
    }
    return null;
  }

  private static Blame ofReason(ServiceBusFailureReason reason) {
    if (ServiceBusFailureReason.UNAUTHORIZED.equals(reason)) {
      return CREDENTIALS;
    }
    if (ServiceBusFailureReason.MESSAGE_SIZE_EXCEEDED.equals(reason)) {
      return MESSAGE_PERMANENT;
    }
    if (BROKER_REASONS.contains(reason)) {
      return BROKER;
    }
    if (MESSAGE_REASONS.contains(reason)) {
      return MESSAGE_RETRYABLE;
    }
    return null; // GENERAL_ERROR and the receivers' reasons: the cause decides
  }

  private static Blame ofCondition(AmqpErrorCondition condition) {
    if (condition == AmqpErrorCondition.UNAUTHORIZED_ACCESS) {
      return CREDENTIALS;
    }
    if (condition == AmqpErrorCondition.LINK_PAYLOAD_SIZE_EXCEEDED) {
      return MESSAGE_PERMANENT;
    }
    if (BROKER_CONDITIONS.contains(condition)) {
      return BROKER;
    }
    if (MESSAGE_CONDITIONS.contains(condition)) {
      return MESSAGE_RETRYABLE;
    }
    return null;
  }

  /** Reactor's {@code block(Duration)} gave up: "Timeout on blocking read for ...". */
  private static boolean isBlockingTimeout(Throwable t) {
    return t instanceof IllegalStateException
        && t.getMessage() != null
        && t.getMessage().startsWith("Timeout on blocking read");
  }

  /** The SDK's connection or link was disposed under the send (it died, or was closed). */
  private static boolean isDisposed(Throwable t) {
    return t instanceof IllegalStateException
        && t.getMessage() != null
        && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("disposed");
  }
}
