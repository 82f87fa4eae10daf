package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whose fault a failure of the RabbitMQ client is: pure functions of the client's exceptions.
 *
 * <ul>
 *   <li>{@link Blame#BROKER}: whatever fails while connecting or opening a channel (connection
 *       refused or reset, credentials refused, virtual host refused or missing, handshake timeout,
 *       the connection being recovered); a connection that closes or is lost (socket error, missed
 *       heartbeats, {@code connection.close} from the broker such as 320 CONNECTION_FORCED or 541
 *       INTERNAL_ERROR, or the client closing it); a channel the broker closes for a reason that is
 *       not the message (403 ACCESS_REFUSED on the exchange or the routing key: a permission the
 *       user lacks, which an operator grants, and which would otherwise dead-letter every message
 *       of the batch the closed channel still held; 541 INTERNAL_ERROR, 506 RESOURCE_ERROR); a send
 *       whose socket write fails.
 *   <li>{@link Blame#MESSAGE_RETRYABLE}: a channel the broker closes because of what was published
 *       (404 NOT_FOUND, no such exchange; 406 PRECONDITION_FAILED, larger than {@code
 *       max_message_size}; a protocol error), and any other exception of a send.
 * </ul>
 *
 * <p>A {@code basic.return} (unroutable) is a retryable fault of the message and a {@code
 * basic.nack} a fault of the broker ({@link BatchConfirms}: RabbitMQ nacks for a full queue with
 * {@code reject-publish} or an internal error, never for what the message holds); a message that
 * cannot be encoded is a permanent one ({@link Outgoing}).
 */
final class Faults {

  /** What RabbitMQ says when it closes a channel for a message over {@code max_message_size}. */
  private static final Pattern TOO_LARGE =
      Pattern.compile("message size (\\d+) is larger than (?:configured )?max size (\\d+)");

  private Faults() {}

  /**
   * Whose fault it is that a channel or connection closed while messages were unconfirmed.
   *
   * @param cause why it closed, or {@code null} when unknown
   * @return the verdict for the messages it still had
   */
  static Blame ofClose(ShutdownSignalException cause) {
    if (cause == null || cause.isHardError() || cause.isInitiatedByApplication()) {
      return Blame.BROKER; // the connection, or the client itself, closed it
    }
    if (!(cause.getReason() instanceof AMQP.Channel.Close close)) {
      return Blame.BROKER;
    }
    return switch (close.getReplyCode()) {
      case AMQP.ACCESS_REFUSED, AMQP.INTERNAL_ERROR, AMQP.RESOURCE_ERROR -> Blame.BROKER;
      default -> Blame.MESSAGE_RETRYABLE;
    };
  }

  /**
   * Whose fault it is that {@code basic.publish} threw.
   *
   * @param failure what it threw
   * @return the verdict for the message and those unconfirmed on its channel
   */
  static Blame ofSend(Throwable failure) {
    ShutdownSignalException closed = shutdownOf(failure);
    if (closed != null) {
      return ofClose(closed);
    }
    return failure instanceof IOException ? Blame.BROKER : Blame.MESSAGE_RETRYABLE;
  }

  /**
   * Whether the broker closed the channel refusing a publish (403 ACCESS_REFUSED). The messages
   * still unconfirmed then fail at once instead of waiting as uncertain: the channel is closed, so
   * nothing of it is in flight any more. One the broker stored before the refusal (its confirm lost
   * with the channel) is sent again later, a duplicate at worst; any other close may come while the
   * broker is still storing, so its messages wait for the grace.
   *
   * @param cause why the channel closed, or {@code null}
   * @return {@code true} for a refused permission
   */
  static boolean refusedBeforeStoring(ShutdownSignalException cause) {
    return cause != null
        && !cause.isHardError()
        && cause.getReason() instanceof AMQP.Channel.Close close
        && close.getReplyCode() == AMQP.ACCESS_REFUSED;
  }

  /**
   * Why the publisher could not connect or open a channel, in words an operator acts on. Names the
   * host, port, virtual host and user, never the password.
   *
   * @param failure what connecting or opening the channel threw
   * @param options where and as whom the publisher connects
   * @return for example {@code RabbitMQ at 127.0.0.1:5672 refused the credentials of user 'guest'
   *     (ACCESS_REFUSED); fix the username or password}
   */
  static String whyUnavailable(Throwable failure, RabbitMqPublisherOptions options) {
    String at = "RabbitMQ at %s:%d".formatted(options.host(), options.port());
    String user = options.username();
    if (failure instanceof AuthenticationFailureException) {
      return "%s refused the credentials of user '%s' (ACCESS_REFUSED); fix the username or password"
          .formatted(at, user);
    }
    if (failure instanceof PossibleAuthenticationFailureException) {
      return ("%s closed the connection while user '%s' logged in, which usually means that it"
              + " refused the credentials; check the username and password")
          .formatted(at, user);
    }
    ShutdownSignalException closed = shutdownOf(failure);
    if (closed != null
        && !closed.isInitiatedByApplication()
        && closed.getReason() instanceof AMQP.Connection.Close close) {
      String said = close.getReplyCode() + " " + close.getReplyText();
      if (close.getReplyCode() == AMQP.NOT_ALLOWED) {
        return ("%s refused user '%s' access to virtual host '%s' (%s); create the virtual host or"
                + " give the user permissions on it")
            .formatted(at, user, options.virtualHost(), said);
      }
      if (close.getReplyCode() == AMQP.ACCESS_REFUSED) {
        return "%s refused user '%s' (%s); fix the username, the password or the user's permissions"
            .formatted(at, user, said);
      }
    }
    return "RabbitMQ is unavailable at %s:%d (virtual host %s): %s"
        .formatted(options.host(), options.port(), options.virtualHost(), describe(failure));
  }

  /**
   * Whether connecting failed because the broker refused the user, the credentials or the virtual
   * host: waiting does not help, an operator must fix the settings or the broker's users.
   *
   * @param failure what connecting threw
   * @return {@code true} for a refusal, {@code false} for an unreachable or lost broker
   */
  static boolean isRefusal(Throwable failure) {
    if (failure instanceof PossibleAuthenticationFailureException) {
      return true;
    }
    ShutdownSignalException closed = shutdownOf(failure);
    return closed != null
        && !closed.isInitiatedByApplication()
        && closed.getReason() instanceof AMQP.Connection.Close close
        && (close.getReplyCode() == AMQP.NOT_ALLOWED
            || close.getReplyCode() == AMQP.ACCESS_REFUSED);
  }

  /**
   * The {@code max_message_size} the broker named when it closed a channel for a message larger.
   *
   * @param cause why a channel closed, or {@code null}
   * @return the limit in bytes, or {@code -1} when the channel closed for another reason
   */
  static long maxMessageSize(ShutdownSignalException cause) {
    if (cause == null
        || !(cause.getReason() instanceof AMQP.Channel.Close close)
        || close.getReplyCode() != AMQP.PRECONDITION_FAILED
        || close.getReplyText() == null) {
      return -1;
    }
    Matcher matcher = TOO_LARGE.matcher(close.getReplyText());
    return matcher.find() ? Long.parseLong(matcher.group(2)) : -1;
  }

  private static String describe(Throwable failure) {
    if (failure instanceof ShutdownSignalException closed) {
      return ShutdownReasons.describe(closed) + " (the client recovers the connection)";
    }
    ShutdownSignalException closed = shutdownOf(failure);
    return closed != null ? ShutdownReasons.describe(closed) : String.valueOf(failure);
  }

  /** The failure itself or its first cause that is a closed channel or connection. */
  private static ShutdownSignalException shutdownOf(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
      if (t instanceof ShutdownSignalException closed) {
        return closed;
      }
    }
    return null;
  }
}
