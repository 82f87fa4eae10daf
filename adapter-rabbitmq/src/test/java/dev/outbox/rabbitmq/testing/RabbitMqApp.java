package dev.outbox.rabbitmq.testing;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Stops and starts the RabbitMQ application of the local node with {@code rabbitmqctl}, for the
 * outage test. {@link #stop()} registers a shutdown hook that starts it again should the JVM end
 * before {@link #start()} ran, so that RabbitMQ is left running for everyone else.
 */
public final class RabbitMqApp {

  private static final long COMMAND_TIMEOUT_SECONDS = 90;

  private Thread restartHook;

  /**
   * Skips the calling test when {@code rabbitmqctl} cannot control the local node (not installed,
   * no access to the Erlang cookie), or fails it when {@code CI=true}.
   */
  public static void assumeControllable() {
    String problem;
    try {
      run("status");
      return;
    } catch (IOException e) {
      problem = e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted";
    }
    String message =
        "The outage test needs 'rabbitmqctl' able to stop and start the local RabbitMQ node (run"
            + " it as the user owning the node's Erlang cookie): "
            + problem;
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail(message + " (CI=true: a failure, not a skip)");
    }
    Assumptions.abort(message);
  }

  /** Stops the broker application ({@code rabbitmqctl stop_app}); the node keeps running. */
  public synchronized void stop() throws IOException, InterruptedException {
    restartHook = new Thread(RabbitMqApp::startQuietly, "rabbitmq-restart");
    Runtime.getRuntime().addShutdownHook(restartHook);
    run("stop_app");
  }

  /** Starts it again ({@code rabbitmqctl start_app}) and waits until it serves. */
  public synchronized void start() throws IOException, InterruptedException {
    run("start_app");
    run("await_startup");
    if (restartHook != null) {
      Runtime.getRuntime().removeShutdownHook(restartHook);
      restartHook = null;
    }
  }

  private static void startQuietly() {
    try {
      run("start_app");
    } catch (IOException | InterruptedException e) {
      System.err.println("Could not restart RabbitMQ: run 'rabbitmqctl start_app': " + e);
    }
  }

  private static void run(String command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("rabbitmqctl", command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("rabbitmqctl " + command + " did not finish in time");
    }
    if (process.exitValue() != 0) {
      throw new IOException("rabbitmqctl " + command + " exited with " + process.exitValue());
    }
  }
}
