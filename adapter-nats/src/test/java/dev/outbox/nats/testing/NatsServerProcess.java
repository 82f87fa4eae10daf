package dev.outbox.nats.testing;

import dev.outbox.testkit.RequiredServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A second nats-server with JetStream that a test starts, stops and restarts on the same loopback
 * port and store directory, optionally with a user and password and a smaller {@code max_payload}
 * ({@link Settings}). {@link #close()} kills it; call it in a {@code finally} or {@code @AfterAll}.
 */
public final class NatsServerProcess implements AutoCloseable {

  /** The server binary. */
  public static final Path BINARY = Path.of("/usr/sbin/nats-server");

  /**
   * What the server is started with besides JetStream.
   *
   * @param user the one user clients must log in as, or {@code null} for no authentication
   * @param password that user's password, or {@code null}
   * @param maxPayload the largest message the server takes in bytes, or 0 for its default (1 MB)
   * @param jetStream whether JetStream is enabled
   */
  public record Settings(String user, String password, int maxPayload, boolean jetStream) {

    /** JetStream, no authentication, the default {@code max_payload}. */
    public static final Settings DEFAULTS = new Settings(null, null, 0, true);

    /**
     * These settings with a user and password.
     *
     * @param name the user
     * @param secret the password
     * @return the settings
     */
    public Settings withUser(String name, String secret) {
      return new Settings(name, secret, maxPayload, jetStream);
    }

    /**
     * These settings with a smaller {@code max_payload}.
     *
     * @param bytes the largest message the server takes
     * @return the settings
     */
    public Settings withMaxPayload(int bytes) {
      return new Settings(user, password, bytes, jetStream);
    }

    /**
     * These settings without JetStream: a plain core NATS server.
     *
     * @return the settings
     */
    public Settings withoutJetStream() {
      return new Settings(user, password, maxPayload, false);
    }

    /** The server's configuration file: only what differs from the defaults. */
    String configFile() {
      StringBuilder config = new StringBuilder();
      if (maxPayload > 0) {
        config.append("max_payload: ").append(maxPayload).append('\n');
      }
      if (user != null) {
        config
            .append("authorization {\n  user: \"")
            .append(user)
            .append("\"\n  password: \"")
            .append(password)
            .append("\"\n}\n");
      }
      return config.toString();
    }
  }

  private final int port;
  private final Path storeDir;
  private final Path log;
  private final Path config;
  private final boolean jetStream;
  private Process process;

  private NatsServerProcess(int port, Path storeDir, Settings settings) throws IOException {
    this.port = port;
    this.jetStream = settings.jetStream();
    this.storeDir = storeDir;
    this.log = storeDir.resolve("server.log");
    this.config = storeDir.resolve("server.conf");
    Files.writeString(config, settings.configFile());
  }

  /**
   * Starts a server on a free loopback port with a fresh store directory. Skips the test when the
   * binary is missing (fails it when {@code CI=true}).
   *
   * @return the running server
   * @throws Exception when it does not come up within 10 seconds
   */
  public static NatsServerProcess start() throws Exception {
    return start(Settings.DEFAULTS);
  }

  /**
   * Starts a server with these settings on a free loopback port with a fresh store directory. Skips
   * the test when the binary is missing (fails it when {@code CI=true}).
   *
   * @param settings authentication and {@code max_payload}
   * @return the running server
   * @throws Exception when it does not come up within 10 seconds
   */
  public static NatsServerProcess start(Settings settings) throws Exception {
    if (!Files.isExecutable(BINARY)) {
      String message =
          "Needs the nats-server binary at " + BINARY + " (apt-get install nats-server)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " (CI=true: a missing server is a failure)");
      }
      Assumptions.abort(message);
    }
    NatsServerProcess server =
        new NatsServerProcess(freePort(), Files.createTempDirectory("outbox-nats-js"), settings);
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
    List<String> command =
        new ArrayList<>(
            List.of(
                BINARY.toString(),
                "-c",
                config.toString(),
                "-a",
                "127.0.0.1",
                "-p",
                String.valueOf(port)));
    if (jetStream) {
      command.addAll(List.of("-js", "-sd", storeDir.toString()));
    }
    process =
        new ProcessBuilder(command)
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
