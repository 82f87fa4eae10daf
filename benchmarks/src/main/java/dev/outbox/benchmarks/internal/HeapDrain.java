package dev.outbox.benchmarks.internal;

import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Whether a large backlog drains to Kafka with a small heap: the parent writes the backlog, then a
 * child JVM ({@code -Xmx256m}, the same classpath) runs only the outbox (Hibernate, the processor,
 * the Kafka producer) against the parent's broker until every row is published.
 */
public final class HeapDrain {

  /** The child's heap. */
  public static final String HEAP = "-Xmx256m";

  /** The argument that makes {@code Benchmarks} the child. */
  public static final String CHILD = "--child-drain";

  private static final int AGGREGATES = 1_000;

  private HeapDrain() {}

  /**
   * Writes the backlog.
   *
   * @param db the database
   * @param events how many
   */
  public static void writeBacklog(BenchDatabase db, int events) {
    db.truncate();
    Backlog.pending(db, KafkaBench.TOPIC, events, AGGREGATES);
  }

  /**
   * Drains in a child JVM and waits for it.
   *
   * @param mainClass the class whose {@code main} handles {@value #CHILD}
   * @param bootstrapServers the parent's Kafka
   * @param events how many to wait for
   * @param timeoutMinutes how long at most
   * @return whether the child drained everything and exited with 0
   */
  public static boolean inChildJvm(
      String mainClass, String bootstrapServers, int events, int timeoutMinutes) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add(HEAP);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.add(CHILD);
    command.add(bootstrapServers);
    command.add(Integer.toString(events));
    try {
      Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
      Thread echo = new Thread(() -> echo(child), "child-output");
      echo.setDaemon(true);
      echo.start();
      if (!child.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
        child.destroyForcibly();
        System.out.println("    child JVM did not finish within " + timeoutMinutes + " min");
        return false;
      }
      echo.join(2_000);
      return child.exitValue() == 0;
    } catch (IOException e) {
      throw new IllegalStateException("Could not start the child JVM: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The child's work: drain what the outbox table holds to Kafka.
   *
   * @param bootstrapServers the parent's Kafka
   * @param events how many to wait for
   * @return the drain's measurement
   */
  public static Relay.Run drainHere(String bootstrapServers, long events) {
    try (BenchDatabase db = BenchDatabase.open(false)) {
      KafkaEventPublisher publisher =
          new KafkaEventPublisher(
              KafkaPublisherOptions.builder().bootstrapServers(bootstrapServers).build());
      return new Relay(db).drainWritten(publisher, events);
    }
  }

  private static void echo(Process child) {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        System.out.println("    [child] " + line);
      }
    } catch (IOException e) {
      // the child ended
    }
  }
}
