package dev.outbox.kafka.kill;

import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.kill.ChildJvm;
import dev.outbox.testkit.kill.JvmFleet;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The processor JVM of {@link dev.outbox.kafka.KafkaProcessorKillIT}: an outbox on the local
 * PostgreSQL tables the test created (never creating or dropping them), publishing to the test's
 * Kafka broker, until the process is killed; a child of the test's {@link JvmFleet}. Prints {@value
 * #READY} once the outbox runs. A SIGTERM closes the outbox in a shutdown hook (releasing its
 * heads); a SIGKILL gives it no chance to.
 *
 * <p>Arguments: instance id, bootstrap servers, outbox table, dead-letter table, lease in
 * milliseconds, publish timeout in milliseconds, a topic for the producer's warm-up message (sent
 * before the outbox starts).
 */
public final class KillableProcessor {

  /** Printed on standard output once the outbox runs. */
  public static final String READY = "PROCESSOR READY";

  private KillableProcessor() {}

  /**
   * Runs the processor until the process ends.
   *
   * @param args see the class comment
   * @throws InterruptedException never in practice: the main thread waits forever
   */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 7) {
      throw new IllegalArgumentException(
          "usage: instanceId bootstrapServers outboxTable deadLetterTable leaseMillis"
              + " publishTimeoutMillis warmUpTopic");
    }
    String instanceId = args[0];
    String bootstrapServers = args[1];
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(args[2])
            .deadLetterTable(args[3])
            .createSchema(false)
            .instanceId(instanceId)
            // Fewer heads per claim than the test has aggregates, so that the processors share them
            // and a kill strands only the victim's heads while the other processor goes on.
            .batchSize(50)
            .pollInterval(Duration.ofMillis(100))
            .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(200)))
            .maxAttempts(1_000)
            .leaseDuration(Duration.ofMillis(Long.parseLong(args[4])))
            .publishTimeout(Duration.ofMillis(Long.parseLong(args[5])))
            .shutdownTimeout(Duration.ofSeconds(3))
            .build();
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(E2eDatabase.URL);
    dataSource.setConnectTimeout(3);
    dataSource.setApplicationName(instanceId);
    EntityManagerFactory emf =
        new HibernatePersistenceConfiguration("outbox-kill-" + instanceId)
            .managedClasses(E2eAggregate.class)
            .property("hibernate.connection.datasource", dataSource)
            .property(OutboxSettings.OPTIONS, options)
            .createEntityManagerFactory();
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            KafkaPublisherOptions.builder()
                .bootstrapServers(bootstrapServers)
                .clientId(instanceId)
                .metadataTimeout(Duration.ofSeconds(2))
                .build());
    // As an application that checks its broker at startup: the producer connects and learns the
    // cluster before the outbox claims anything, so that the first batch does not pay for that.
    long warming = System.nanoTime();
    List<PublishResult> warmUp =
        publisher.publish(
            List.of(TestMessages.message(args[6], instanceId)), Duration.ofSeconds(20));
    long warmUpMillis = (System.nanoTime() - warming) / 1_000_000;
    if (!warmUp.get(0).isPublished()) {
      System.out.println("WARM-UP FAILED " + warmUp.get(0).failure());
    }
    Outbox outbox = HibernateOutbox.create(emf, publisher, options);
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  outbox.close();
                  emf.close();
                  System.out.println("PROCESSOR CLOSED " + instanceId);
                  closed.countDown();
                },
                "close-" + instanceId));
    ChildJvm.exitWithParent();
    outbox.start();
    ChildJvm.printReady(READY, instanceId, " (warm-up " + warmUpMillis + " ms)");
    closed.await();
  }
}
