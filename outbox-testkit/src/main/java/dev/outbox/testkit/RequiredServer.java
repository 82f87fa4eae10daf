package dev.outbox.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Checks that a server a test needs is listening. When it is not, the test is aborted (reported as
 * skipped) with a message that says what to start; when the environment variable {@code CI} is
 * {@code true}, it fails instead, because CI starts every server and a skip there hides a problem.
 *
 * <pre>{@code
 * @BeforeAll
 * static void rabbitMqRuns() {
 *   RequiredServer.assumeReachable("RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached");
 * }
 * }</pre>
 */
public final class RequiredServer {

  /** The PostgreSQL the end-to-end helpers use: host. */
  public static final String POSTGRES_HOST = "127.0.0.1";

  /** The PostgreSQL the end-to-end helpers use: port. */
  public static final int POSTGRES_PORT = 5432;

  /** How to start the local PostgreSQL. */
  public static final String POSTGRES_HOW_TO_START =
      "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
          + " (database test, user postgres, trust auth)";

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  private RequiredServer() {}

  /**
   * Aborts the calling test when nothing listens on {@code host:port}, or fails it when {@code
   * CI=true}.
   *
   * @param name the server, for the message ("RabbitMQ")
   * @param host its host
   * @param port its port
   * @param howToStart the command or step that starts it
   */
  public static void assumeReachable(String name, String host, int port, String howToStart) {
    assumeReachable(name, host, port, howToStart, "true".equalsIgnoreCase(System.getenv("CI")));
  }

  /** Aborts (or in CI fails) the calling test when the local PostgreSQL is not running. */
  public static void assumePostgres() {
    assumeReachable("PostgreSQL", POSTGRES_HOST, POSTGRES_PORT, POSTGRES_HOW_TO_START);
  }

  /**
   * Whether something accepts TCP connections on {@code host:port}.
   *
   * @param host the host
   * @param port the port
   * @return {@code true} when a connection succeeded within two seconds
   */
  public static boolean isReachable(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), (int) CONNECT_TIMEOUT.toMillis());
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static void assumeReachable(String name, String host, int port, String howToStart, boolean ci) {
    if (isReachable(host, port)) {
      return;
    }
    String message =
        name + " is not reachable at " + host + ":" + port + ". Start it with: " + howToStart;
    if (ci) {
      Assertions.fail(message + " (CI=true: a missing server is a failure, not a skip)");
    }
    Assumptions.abort(message);
  }
}
