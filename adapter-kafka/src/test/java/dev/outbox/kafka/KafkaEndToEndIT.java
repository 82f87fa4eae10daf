package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.Outbox;
import dev.outbox.hibernate.OutboxModule;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.kafka.testing.BackgroundConsumer;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.kafka.testing.TimedPublisher;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole path on real servers: Hibernate on PostgreSQL writes events in concurrent business
 * transactions, the outbox processor publishes them through this adapter to a real Kafka broker,
 * and a consumer checks that every event arrived, in order per aggregate.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class KafkaEndToEndIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaEndToEndIT.class);
  private static final int PARTITIONS = 6;

  private EmbeddedKafka kafka;

  @BeforeAll
  void startServers() {
    RequiredServer.assumePostgres();
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void tenThousandEventsOfAHundredAggregatesArriveOnceEachInOrderPerAggregate() throws Exception {
    String type = TestMessages.aggregateType("e2e");
    kafka.createTopic(type, PARTITIONS);
    TimedPublisher publisher = new TimedPublisher(publisher());
    try (E2eDatabase db = E2eDatabase.start("kafka");
        Outbox outbox = db.outbox(publisher)) {
      outbox.start();
      long start = System.nanoTime();
      EventWriter.Written written = db.writer(type).write(10_000, 100, 8);
      DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
      try (BackgroundConsumer consumer =
          new BackgroundConsumer(kafka.bootstrapServers(), type, check)) {
        check.awaitComplete(Duration.ofSeconds(90));
        Thread.sleep(500); // late duplicates, if any, would arrive now
      }
      LOG.info(
          "10,000 events: written in {} ms, all consumed {} ms after the first commit; {}; {}",
          written.took().toMillis(),
          Duration.ofNanos(System.nanoTime() - start).toMillis(),
          check.summary(),
          publisher);
      check.assertDeliveredInOrderExactlyOnce();
      assertThat(db.countDeadLetters()).isZero();
    }
  }

  @Test
  void eventsCommittedWhileTheBrokerIsDownArriveInOrderAfterItComesBack() throws Exception {
    String type = TestMessages.aggregateType("outage");
    kafka.createTopic(type, PARTITIONS);
    try (E2eDatabase db = E2eDatabase.start("kafka_outage")) {
      Outbox outbox = guiceOutbox(db);
      try (outbox) {
        outbox.start();
        CompletableFuture<EventWriter.Written> writing =
            CompletableFuture.supplyAsync(() -> write(db, type));
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> db.countOutbox("PUBLISHED") > 0 || writing.isDone());
        kafka.stop();
        EventWriter.Written written = writing.get();
        // A call in flight at the stop may still return the records acked before it, within the
        // publish timeout; after that, nothing may count as published while the broker is down.
        Thread.sleep(db.options().publishTimeout().plusSeconds(2).toMillis());
        long pendingWhileDown = db.countOutbox("PENDING");
        Thread.sleep(3_000);
        assertThat(db.countOutbox("PENDING")).isEqualTo(pendingWhileDown).isPositive();
        kafka.restart();

        DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
        try (BackgroundConsumer consumer =
            new BackgroundConsumer(kafka.bootstrapServers(), type, check)) {
          check.awaitComplete(Duration.ofSeconds(90));
          Thread.sleep(500);
        }
        LOG.info("Outage: {} pending while down; {}", pendingWhileDown, check.summary());
        check.assertDeliveredInOrder();
        assertThat(db.countDeadLetters()).isZero();
      }
    }
  }

  private static EventWriter.Written write(E2eDatabase db, String type) {
    try {
      return db.writer(type).write(2_000, 40, 4);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The Outbox as an application wires it: OutboxModule next to KafkaOutboxModule. */
  private Outbox guiceOutbox(E2eDatabase db) {
    Injector injector =
        Guice.createInjector(
            new OutboxModule(db.options()),
            new KafkaOutboxModule(options()),
            binder -> binder.bind(EntityManagerFactory.class).toInstance(db.emf()));
    return injector.getInstance(Outbox.class);
  }

  private KafkaEventPublisher publisher() {
    return new KafkaEventPublisher(options());
  }

  private KafkaPublisherOptions options() {
    return KafkaPublisherOptions.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .metadataTimeout(Duration.ofSeconds(2))
        .build();
  }
}
