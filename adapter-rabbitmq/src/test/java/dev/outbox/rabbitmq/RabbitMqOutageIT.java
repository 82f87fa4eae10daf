package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.rabbitmq.testing.RabbitMqApp;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.StepRecorder;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.e2e.E2eAggregate;
import dev.outbox.testkit.e2e.E2eAggregate.Stepped;
import dev.outbox.testkit.e2e.E2eDatabase;
import dev.outbox.testkit.e2e.EventWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker outage while the processor runs: {@code rabbitmqctl stop_app}, events committed during
 * the outage, {@code start_app}; every event arrives, in order per aggregate. The broker is always
 * started again (finally block, and a shutdown hook should the JVM die). The exchange and queue are
 * durable, so that what was confirmed before the stop survives it, and are deleted at the end.
 */
@Timeout(300)
class RabbitMqOutageIT {

  /** Skips (fails when CI=true) without RabbitMQ, PostgreSQL, or a working rabbitmqctl. */
  @BeforeAll
  static void serversAndBrokerControl() throws Exception {
    RabbitMqTestBroker.connect().close();
    RequiredServer.assumePostgres();
    RabbitMqApp.assumeControllable();
  }

  @Test
  void everyEventCommittedDuringABrokerOutageArrivesAfterTheRestart() throws Exception {
    String exchange = RabbitMqTestBroker.name("outage");
    String queue = RabbitMqTestBroker.name("outage-q");
    StepRecorder recorder = new StepRecorder();
    RabbitMqApp app = new RabbitMqApp();
    try (RabbitMqTestBroker broker = RabbitMqTestBroker.connect();
        E2eDatabase db = E2eDatabase.start("rabbitmq_outage")) {
      broker.declareExchange(exchange, true);
      broker.declareQueue(queue, true, exchange, Stepped.TYPE);
      broker.consume(queue, recorder::record);
      try (Outbox outbox = db.outbox(publisher(exchange))) {
        outbox.start();
        EventWriter.Written before = db.writer("rabbit-outage").write(500, 10, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> db.countOutbox("PUBLISHED") == 500);

        long stopped = System.nanoTime();
        try {
          app.stop();
          stepEach(db, before.eventsPerAggregate().keySet(), 100);
          Thread.sleep(2_000); // the processor keeps trying while the broker is down
          assertThat(db.countOutbox("PENDING")).isEqualTo(1_000);
        } finally {
          app.start();
        }
        long restarted = System.nanoTime();

        Map<String, Integer> expected = new HashMap<>();
        before.eventsPerAggregate().forEach((id, count) -> expected.put(id, count + 100));
        DeliveryCheck check = recorder.attach(DeliveryCheck.expecting(expected));
        boolean complete = check.awaitComplete(Duration.ofMinutes(2));
        System.out.printf(
            "RabbitMQ outage: broker down %d ms, all events arrived %d ms after start_app; %s%n",
            (restarted - stopped) / 1_000_000,
            (System.nanoTime() - restarted) / 1_000_000,
            check.summary());
        assertThat(complete).as(check.summary()).isTrue();
        check.assertDeliveredInOrder();
        assertThat(db.countDeadLetters()).isZero();
      }
    } finally {
      try (RabbitMqTestBroker broker = RabbitMqTestBroker.connect()) {
        broker.delete(exchange, queue);
      }
    }
  }

  /** Commits {@code steps} more events of each aggregate, ten per transaction. */
  private static void stepEach(E2eDatabase db, Set<String> aggregateIds, int steps) {
    for (int round = 0; round < steps / 10; round++) {
      for (String id : aggregateIds) {
        db.emf()
            .inTransaction(
                session -> {
                  E2eAggregate aggregate = session.find(E2eAggregate.class, id);
                  for (int i = 0; i < 10; i++) {
                    aggregate.step();
                  }
                });
      }
    }
  }

  private static RabbitMqEventPublisher publisher(String exchange) {
    return new RabbitMqEventPublisher(
        RabbitMqPublisherOptions.builder()
            .host(RabbitMqTestBroker.HOST)
            .port(RabbitMqTestBroker.PORT)
            .exchange(exchange)
            .connectionTimeout(Duration.ofSeconds(3))
            .recoveryInterval(Duration.ofMillis(500))
            .build());
  }
}
