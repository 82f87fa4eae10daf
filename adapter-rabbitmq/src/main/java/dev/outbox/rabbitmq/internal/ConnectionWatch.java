package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the client reports about the publisher's connection between batches: whether the broker
 * blocks publishing (a memory or disk alarm), and while the client recovers a lost connection, why
 * its last attempt to reconnect failed (for example refused credentials), so that the failures of
 * the batches meanwhile can say so. A reconnect that fails because the broker refuses the user or
 * the virtual host is one WARN line (again only when the reason changes): the operator must act.
 * One that fails because the broker is still away is logged at DEBUG: the outbox reports the outage
 * itself, once when it starts and once when it ends.
 */
final class ConnectionWatch extends DefaultExceptionHandler
    implements BlockedListener, RecoveryListener {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionWatch.class);

  private final RabbitMqPublisherOptions options;
  private final Consumer<Connection> onRecovery;
  private volatile String blockedReason;
  private volatile Throwable recoveryFailure;

  /**
   * A watch for one publisher's connection.
   *
   * @param options the publisher's options, for the messages
   * @param onRecovery what to do on the connection once the client recovered it
   */
  ConnectionWatch(RabbitMqPublisherOptions options, Consumer<Connection> onRecovery) {
    this.options = options;
    this.onRecovery = onRecovery;
  }

  /** Why the broker blocks publishing, or {@code null}. */
  String blockedReason() {
    return blockedReason;
  }

  /** What the last attempt to recover the connection threw, or {@code null}. */
  Throwable recoveryFailure() {
    return recoveryFailure;
  }

  @Override
  public void handleBlocked(String reason) {
    LOG.warn("RabbitMQ blocks publishing: {}", reason);
    blockedReason = reason == null ? "blocked" : reason;
  }

  @Override
  public void handleUnblocked() {
    LOG.info("RabbitMQ unblocked publishing");
    blockedReason = null;
  }

  @Override
  public void handleRecoveryStarted(Recoverable recoverable) {
    LOG.warn("Lost the RabbitMQ connection; recovering every {}", options.recoveryInterval());
  }

  @Override
  public void handleRecovery(Recoverable recoverable) {
    LOG.info("Recovered the RabbitMQ connection");
    recoveryFailure = null;
    blockedReason = null; // a new connection starts unblocked; the broker says so again if not
    if (recoverable instanceof Connection connection) {
      onRecovery.accept(connection);
    }
  }

  /** The connection failed (reset, broken pipe): the recovery's WARN line says so already. */
  @Override
  public void handleUnexpectedConnectionDriverException(
      Connection connection, Throwable exception) {
    LOG.debug("The RabbitMQ connection failed: {}", exception.toString(), exception);
  }

  @Override
  public void handleConnectionRecoveryException(Connection connection, Throwable exception) {
    String reason = Faults.whyUnavailable(exception, options);
    Throwable last = recoveryFailure;
    boolean repeated = last != null && reason.equals(Faults.whyUnavailable(last, options));
    if (Faults.isRefusal(exception) && !repeated) {
      LOG.warn(
          "Reconnecting failed, trying again every {}: {}", options.recoveryInterval(), reason);
    } else {
      LOG.debug("Reconnecting failed: {}", reason, exception);
    }
    recoveryFailure = exception;
  }
}
