package dev.outbox.nats.internal;

import dev.outbox.OutboxException;
import dev.outbox.nats.NatsPublisherOptions;
import io.nats.client.AuthenticationException;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.net.SocketException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the publisher's connection. The first attempt runs in {@link #start()}; when no server
 * answers, a daemon thread keeps trying every {@code reconnectWait} until one does or the holder is
 * closed, so the application starts while NATS is down. Once connected, jnats reconnects forever
 * and fails over among the servers. While there is no connection, {@link #unavailableReason()} says
 * why, in particular when the server refuses the credentials.
 */
public final class Connector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Connector.class);

  private final NatsPublisherOptions options;
  private final Options natsOptions;
  private final Consumer<Connection> onFirstConnect;
  private final Login login;
  private volatile Connection connection;

  /** What the server said when it last refused the credentials; {@code null} once connected. */
  private volatile String refusal;

  /** The last failure to connect; {@code null} once connected. */
  private volatile String lastFailure;

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
    this.login = Login.of(options);
    this.onFirstConnect = onFirstConnect;
    this.natsOptions = builder(options, this::changed, new Errors()).build();
  }

  /** Tries once to connect; on failure keeps trying in the background. */
  public synchronized void start() {
    if (tryConnect()) {
      return;
    }
    if (refusal == null) { // a refusal was logged already
      LOG.warn("NATS at {} is not reachable yet; retrying in the background", servers());
    }
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
   * Why no message can be sent now, for a broker fault: the refused credentials when the server
   * refused them, otherwise the connection's state and its last failure.
   *
   * @return for example {@code NATS at nats://host:4222 refused the credentials of user 'app'
   *     (Authorization Violation); fix the user or password}
   */
  public String unavailableReason() {
    String refused = refusal;
    if (refused != null) {
      return describeRefusal(refused);
    }
    String failure = lastFailure;
    return "not connected to NATS at "
        + servers()
        + " ("
        + (connection == null ? "never connected" : connection.getStatus().toString())
        + (failure == null ? "" : "; last attempt: " + failure)
        + "); reconnecting every "
        + options.reconnectWait();
  }

  private String describeRefusal(String serverError) {
    return Failures.credentialsRefused(servers(), login, serverError);
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
    } catch (AuthenticationException e) {
      refused(serverError(e));
      return false;
    } catch (IOException e) {
      LOG.debug("NATS connect attempt failed: {}", e.toString());
      if (lastFailure == null) {
        lastFailure = rootMessage(e);
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String servers() {
    List<String> servers = options.servers().stream().map(Redaction::url).toList();
    return servers.size() == 1 ? servers.get(0) : servers.toString();
  }

  /** Records a refusal of the credentials; logs it when it is new. */
  private void refused(String serverError) {
    if (!serverError.equals(refusal)) {
      refusal = serverError;
      LOG.warn("{}", describeRefusal(serverError));
    }
  }

  /** The innermost exception's words: "Connection refused", not the wrappers around it. */
  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return Redaction.text(root.getMessage() == null ? root.toString() : root.getMessage());
  }

  private static boolean isNetworkFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SocketException) {
        return true;
      }
    }
    return false;
  }

  /** The server's words in jnats' "Authentication error connecting to NATS server: ...". */
  private static String serverError(AuthenticationException e) {
    String text = String.valueOf(e.getMessage());
    int colon = text.lastIndexOf(": ");
    return colon < 0 ? text : text.substring(colon + 2);
  }

  /**
   * The jnats options for these publisher options.
   *
   * @param options the options
   * @return the jnats options
   */
  public static Options natsOptions(NatsPublisherOptions options) {
    return builder(options, null, null).build();
  }

  /**
   * The options' jnats builder; the listeners go in before the customizer, which may replace them.
   */
  private static Options.Builder builder(
      NatsPublisherOptions options, ConnectionListener listener, ErrorListener errors) {
    Options.Builder b =
        new Options.Builder()
            .servers(options.servers().toArray(String[]::new))
            .connectionName(options.connectionName())
            .connectionTimeout(options.connectionTimeout())
            .reconnectWait(options.reconnectWait())
            .maxReconnects(-1);
    if (listener != null) {
      b.connectionListener(listener).errorListener(errors);
    }
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
    return b;
  }

  private void changed(Connection connection, ConnectionListener.Events event) {
    switch (event) {
      case CONNECTED, RECONNECTED -> {
        refusal = null;
        lastFailure = null;
        LOG.info("NATS {} to {}", event.getEvent(), Redaction.url(connection.getConnectedUrl()));
      }
      case DISCONNECTED -> {
        if (connection.getStatus() == Connection.Status.RECONNECTING) {
          LOG.warn(
              "NATS disconnected; reconnecting to {} every {}", servers(), options.reconnectWait());
        }
      }
      default -> LOG.debug("NATS {}", event.getEvent());
    }
  }

  /**
   * Logs the client's asynchronous errors through SLF4J instead of java.util.logging, and keeps
   * what the publisher's failures must say: the server refusing the credentials, the last failure
   * to connect.
   */
  private final class Errors implements ErrorListener {
    @Override
    public void errorOccurred(Connection conn, String error) {
      if (Failures.isCredentialsRefusal(error)) {
        refused(error);
      } else {
        LOG.warn("NATS server error: {}", error);
      }
    }

    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      if (!isConnected()) {
        lastFailure = rootMessage(exp);
        if (isNetworkFailure(exp)) {
          refusal = null; // nobody to refuse anything: the server is not reachable
        }
      }
      LOG.debug("NATS client exception: {}", exp.toString());
    }
  }
}
