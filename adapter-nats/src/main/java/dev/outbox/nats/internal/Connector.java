package dev.outbox.nats.internal;

import dev.outbox.OutboxException;
import dev.outbox.nats.NatsPublisherOptions;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the publisher's connection. The first attempt runs in {@link #start()}; when no server
 * answers, a daemon thread keeps trying every {@code reconnectWait} until one does or the holder is
 * closed, so the application starts while NATS is down. Once connected, jnats reconnects forever
 * and fails over among the servers.
 */
public final class Connector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Connector.class);

  private final NatsPublisherOptions options;
  private final Options natsOptions;
  private final Consumer<Connection> onFirstConnect;
  private volatile Connection connection;
  private volatile boolean closed;
  private Thread retrying;

  /**
   * A holder, not connected yet.
   *
   * @param options the options
   * @param onFirstConnect called once with the connection when it is first established
   */
  public Connector(NatsPublisherOptions options, Consumer<Connection> onFirstConnect) {
    this.options = options;
    this.natsOptions = natsOptions(options);
    this.onFirstConnect = onFirstConnect;
  }

  /** Tries once to connect; on failure keeps trying in the background. */
  public synchronized void start() {
    if (tryConnect()) {
      return;
    }
    LOG.warn("NATS at {} is not reachable yet; retrying in the background", servers());
    retrying = new Thread(this::retryUntilConnected, "outbox-nats-connect");
    retrying.setDaemon(true);
    retrying.start();
  }

  /**
   * The connection.
   *
   * @return the connection, or {@code null} while none was ever established
   */
  public Connection connection() {
    return connection;
  }

  /**
   * Whether the connection is up now.
   *
   * @return {@code true} when connected
   */
  public boolean isConnected() {
    Connection current = connection;
    return current != null && current.getStatus() == Connection.Status.CONNECTED;
  }

  /**
   * What the connection is doing, for failure messages.
   *
   * @return for example {@code RECONNECTING}, or {@code never connected}
   */
  public String status() {
    Connection current = connection;
    return current == null ? "never connected to " + servers() : current.getStatus().toString();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (retrying != null) {
      retrying.interrupt();
    }
    Connection current = connection;
    if (current != null) {
      try {
        current.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void retryUntilConnected() {
    while (!closed) {
      try {
        Thread.sleep(options.reconnectWait().toMillis());
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        if (closed || tryConnect()) {
          return;
        }
      }
    }
  }

  private boolean tryConnect() {
    try {
      Connection opened = Nats.connect(natsOptions);
      connection = opened;
      onFirstConnect.accept(opened);
      return true;
    } catch (IOException e) {
      LOG.debug("NATS connect attempt failed: {}", e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String servers() {
    return options.servers().stream().map(Redaction::url).toList().toString();
  }

  /**
   * The jnats options for these publisher options.
   *
   * @param options the options
   * @return the jnats options
   */
  public static Options natsOptions(NatsPublisherOptions options) {
    Options.Builder b =
        new Options.Builder()
            .servers(options.servers().toArray(String[]::new))
            .connectionName(options.connectionName())
            .connectionTimeout(options.connectionTimeout())
            .reconnectWait(options.reconnectWait())
            .maxReconnects(-1)
            .connectionListener(listener(options))
            .errorListener(new LoggingErrorListener());
    options.username().ifPresent(u -> b.userInfo(u, options.password().orElse("")));
    options.token().ifPresent(t -> b.token(t.toCharArray()));
    options.credentialsFile().ifPresent(b::credentialPath);
    options.truststorePath().ifPresent(b::truststorePath);
    options.truststorePassword().ifPresent(p -> b.truststorePassword(p.toCharArray()));
    if (options.tls() && options.truststorePath().isEmpty()) {
      try {
        b.secure();
      } catch (NoSuchAlgorithmException e) {
        throw new OutboxException("TLS is not available in this JVM", e);
      }
    }
    options.customizer().ifPresent(c -> c.accept(b));
    return b.build();
  }

  private static ConnectionListener listener(NatsPublisherOptions options) {
    return (connection, event) -> {
      switch (event) {
        case CONNECTED, RECONNECTED ->
            LOG.info(
                "NATS {} to {}", event.getEvent(), Redaction.url(connection.getConnectedUrl()));
        case DISCONNECTED -> {
          if (connection.getStatus() == Connection.Status.RECONNECTING) {
            LOG.warn(
                "NATS disconnected; reconnecting to {} every {}",
                options.servers().stream().map(Redaction::url).toList(),
                options.reconnectWait());
          }
        }
        default -> LOG.debug("NATS {}", event.getEvent());
      }
    };
  }

  /** Logs the client's asynchronous errors through SLF4J instead of java.util.logging. */
  private static final class LoggingErrorListener implements ErrorListener {
    @Override
    public void errorOccurred(Connection conn, String error) {
      LOG.warn("NATS server error: {}", error);
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      LOG.debug("NATS client exception: {}", exp.toString());
    }
  }
}
