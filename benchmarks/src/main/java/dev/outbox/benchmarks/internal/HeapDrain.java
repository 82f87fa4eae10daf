package dev.outbox.benchmarks.internal;

import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import java.util.List;

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
    try (ChildJvm child =
        ChildJvm.start(
            "child",
            List.of(HEAP, "-XX:+ExitOnOutOfMemoryError"),
            mainClass,
            null,
            CHILD,
            bootstrapServers,
            Integer.toString(events))) {
      return child.await(timeoutMinutes * 60L) == 0;
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
}
