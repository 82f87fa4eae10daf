package dev.outbox.benchmarks.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM on this JVM's classpath: its output is echoed with a label, lines can be sent to its
 * standard input, and the parent can wait for a line it prints.
 */
final class ChildJvm implements AutoCloseable {

  private final String label;
  private final Process process;
  private final Writer input;
  private final Thread echo;
  private final String awaited;
  private final CountDownLatch seen = new CountDownLatch(1);

  private ChildJvm(String label, Process process, String awaited) {
    this.label = label;
    this.process = process;
    this.awaited = awaited;
    this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.echo = new Thread(this::echo, label + "-output");
    echo.setDaemon(true);
    echo.start();
  }

  /**
   * Starts {@code mainClass} in a new JVM.
   *
   * @param label the prefix of its echoed lines
   * @param jvmOptions options before the class, such as {@code -Xmx256m}
   * @param mainClass the class whose {@code main} runs
   * @param awaited a line {@link #awaitLine} waits for, or {@code null}
   * @param args its arguments
   * @return the running child
   */
  static ChildJvm start(
      String label, List<String> jvmOptions, String mainClass, String awaited, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(List.of(args));
    try {
      return new ChildJvm(
          label, new ProcessBuilder(command).redirectErrorStream(true).start(), awaited);
    } catch (IOException e) {
      throw new IllegalStateException("Could not start the child JVM " + label + ": " + e, e);
    }
  }

  /**
   * Waits until the child printed the awaited line.
   *
   * @param timeoutSeconds at most this long
   * @return whether it did
   */
  boolean awaitLine(long timeoutSeconds) {
    try {
      return seen.await(timeoutSeconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Sends a line to the child's standard input.
   *
   * @param line the line
   */
  void send(String line) {
    try {
      input.write(line + "\n");
      input.flush();
    } catch (IOException e) {
      throw new IllegalStateException("The child JVM " + label + " is gone: " + e, e);
    }
  }

  /**
   * Waits for the child to exit; kills it when it does not in time.
   *
   * @param timeoutSeconds at most this long
   * @return its exit code, or -1 when it had to be killed
   */
  int await(long timeoutSeconds) {
    try {
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        System.out.println("    " + label + " did not exit within " + timeoutSeconds + " s");
        return -1;
      }
      echo.join(2_000);
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return -1;
    }
  }

  /** Kills the child if it still runs. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  private void echo() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        System.out.println("    [" + label + "] " + line);
        if (line.equals(awaited)) {
          seen.countDown();
        }
      }
    } catch (IOException e) {
      // the child ended
    }
  }
}
