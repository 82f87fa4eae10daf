package dev.outbox.nats.testing;

import dev.outbox.testkit.RequiredServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A second nats-server with JetStream that a test starts, stops and restarts on the same loopback
 * port and store directory. {@link #close()} kills it; call it in a {@code finally} or
 * {@code @AfterAll}.
 */
public final class NatsServerProcess implements AutoCloseable {

  /** The server binary. */
  public static final Path BINARY = Path.of("/usr/sbin/nats-server");

  private final int port;
  private final Path storeDir;
  private final Path log;
  private Process process;

  private NatsServerProcess(int port, Path storeDir) {
    this.port = port;
    this.storeDir = storeDir;
    this.log = storeDir.resolve("server.log");
  }

  /**
   * Starts a server on a free loopback port with a fresh store directory. Skips the test when the
   * binary is missing (fails it when {@code CI=true}).
   *
   * @return the running server
   * @throws Exception when it does not come up within 10 seconds
   */
  public static NatsServerProcess start() throws Exception {
    if (!Files.isExecutable(BINARY)) {
      String message =
          "Needs the nats-server binary at " + BINARY + " (apt-get install nats-server)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " (CI=true: a missing server is a failure)");
      }
      Assumptions.abort(message);
    }
    NatsServerProcess server =
        new NatsServerProcess(freePort(), Files.createTempDirectory("outbox-nats-js"));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "kill-test-nats-server"));
    server.restart();
    return server;
  }

  /**
   * The client URL.
   *
   * @return {@code nats://127.0.0.1:<port>}
   */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  /**
   * Starts the server again on the same port and store directory.
   *
   * @throws Exception when it does not come up within 10 seconds
   */
  public synchronized void restart() throws Exception {
    if (process != null && process.isAlive()) {
      return;
    }
    process =
        new ProcessBuilder(
                BINARY.toString(),
                "-a",
                "127.0.0.1",
                "-p",
                String.valueOf(port),
                "-js",
                "-sd",
                storeDir.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!RequiredServer.isReachable("127.0.0.1", port)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException(
            "nats-server did not start on port " + port + "; see " + log);
      }
      Thread.sleep(50);
    }
  }

  /**
   * Stops the server (SIGTERM, then SIGKILL after 10 seconds) and waits until it is gone.
   *
   * @throws InterruptedException when interrupted
   */
  public synchronized void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    process = null;
  }

  /**
   * Freezes the running server (SIGSTOP): connections stay open but nothing is answered.
   *
   * @throws Exception when the signal cannot be sent
   */
  public synchronized void freeze() throws Exception {
    signal("-STOP");
    awaitState('T', "stopped");
  }

  /**
   * Lets a frozen server go on (SIGCONT).
   *
   * @throws Exception when the signal cannot be sent
   */
  public synchronized void thaw() throws Exception {
    signal("-CONT");
    awaitState('S', "running");
  }

  /**
   * Waits until the kernel reports the process in the given state (from {@code /proc/<pid>/stat}),
   * so that a test never publishes to a server the signal has not reached yet. 'S' also accepts a
   * running ('R') or otherwise awake process.
   */
  private void awaitState(char state, String what) throws Exception {
    Path stat = Path.of("/proc", String.valueOf(process.pid()), "stat");
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < deadline) {
      String text = Files.readString(stat);
      char current = text.charAt(text.lastIndexOf(')') + 2);
      boolean reached = state == 'T' ? current == 'T' : current != 'T';
      if (reached) {
        return;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException(
        "nats-server " + process.pid() + " was not " + what + " in 5 s");
  }

  /** Kills the server, frozen or not, and deletes its store directory. */
  @Override
  public synchronized void close() {
    kill();
    try (Stream<Path> files = Files.walk(storeDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // left for the OS to clean up
    }
  }

  private void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
    }
  }

  private void signal(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", signal, String.valueOf(process.pid())).start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill " + signal + " failed");
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
