package dev.outbox.hibernate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.fake.InMemoryBroker;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The end-to-end helpers on the real PostgreSQL with the in-memory broker, shaped like an adapter's
 * end-to-end test: 10,000 events of 100 aggregates from concurrent transactions, all consumed, in
 * order per aggregate, each once.
 */
class EndToEndHelpersIT {

  @Test
  void everyEventWrittenByConcurrentTransactionsIsConsumedOnceInOrderPerAggregate()
      throws Exception {
    InMemoryBroker broker = new InMemoryBroker();
    broker.declare(E2eAggregate.DEFAULT_TYPE);
    try (E2eDatabase db = E2eDatabase.start("testkit");
        Outbox outbox = db.outbox(broker.publisher(Flaw.NONE))) {
      outbox.start();
      EventWriter.Written written = db.writer(E2eAggregate.DEFAULT_TYPE).write(10_000, 100, 8);
      DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
      AtomicBoolean consuming = new AtomicBoolean(true);
      Thread consumer = new Thread(() -> consume(broker, check, consuming));
      consumer.start();
      try {
        check.awaitComplete(Duration.ofMinutes(2));
      } finally {
        consuming.set(false);
        consumer.join();
      }
      System.out.printf(
          "EndToEndHelpersIT: %s (written in %d ms)%n", check.summary(), written.took().toMillis());

      assertThat(written.total()).isEqualTo(10_000);
      check.assertDeliveredInOrderExactlyOnce();
      // The broker has a message while the processor still has to record it.
      await().atMost(Duration.ofSeconds(30)).until(() -> db.countOutbox("PENDING") == 0);
      assertThat(db.countDeadLetters()).isZero();
    }
  }

  private static void consume(InMemoryBroker broker, DeliveryCheck check, AtomicBoolean running) {
    try {
      while (running.get()) {
        for (ReceivedMessage message :
            broker.take(E2eAggregate.DEFAULT_TYPE, 500, Duration.ofMillis(100))) {
          E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(message.body());
          check.record(message.key(), event.sequence(), message.messageId());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
