package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.hibernate.testing.e2e.E2eAggregate.Stepped;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.StepRecorder;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The whole path on PostgreSQL and RabbitMQ: aggregates saved with Hibernate, the outbox processor,
 * the publisher with its default routing (routing key = event type), a consumer on a bound queue.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class RabbitMqEndToEndIT {

  private RabbitMqTestBroker broker;
  private String exchange;
  private String queue;

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqTestBroker.connect();
  }

  @AfterAll
  void disconnect() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void freshExchange() throws Exception {
    exchange = RabbitMqTestBroker.name("e2e");
    queue = RabbitMqTestBroker.name("e2e-q");
    broker.declareExchange(exchange, false);
  }

  @AfterEach
  void deleteTopology() {
    broker.delete(exchange, queue);
  }

  @Test
  void tenThousandEventsOfAHundredAggregatesArriveOnceEachInOrderPerAggregate() throws Exception {
    StepRecorder recorder = new StepRecorder();
    broker.declareQueue(queue, false, exchange, Stepped.TYPE);
    broker.consume(queue, recorder::record);
    try (E2eDatabase db = E2eDatabase.start("rabbitmq");
        Outbox outbox = db.outbox(publisher())) {
      outbox.start();
      long start = System.nanoTime();
      EventWriter.Written written = db.writer("rabbit-order").write(10_000, 100, 4);
      DeliveryCheck check = recorder.attach(DeliveryCheck.expecting(written.eventsPerAggregate()));
      boolean complete = check.awaitComplete(Duration.ofMinutes(3));
      Duration total = Duration.ofNanos(System.nanoTime() - start);

      System.out.printf(
          "RabbitMQ end to end: wrote %d events in %d ms, all delivered %d ms after the first"
              + " commit; %s%n",
          written.total(), written.took().toMillis(), total.toMillis(), check.summary());
      assertThat(complete).as(check.summary()).isTrue();
      check.assertDeliveredInOrderExactlyOnce();
      await().atMost(Duration.ofSeconds(30)).until(() -> db.countOutbox("PUBLISHED") == 10_000);
      assertThat(db.countDeadLetters()).isZero();
    }
  }

  @Test
  void unroutableEventsStayInTheOutboxAndAreDeliveredOnceAQueueIsBound() throws Exception {
    StepRecorder recorder = new StepRecorder();
    try (E2eDatabase db = E2eDatabase.start("rabbitmq");
        Outbox outbox = db.outbox(publisher())) {
      outbox.start();
      EventWriter.Written written = db.writer("rabbit-unroutable").write(200, 10, 2);
      await().atMost(Duration.ofSeconds(30)).until(() -> failedAttempts(db, "unroutable") >= 10);

      assertThat(db.countOutbox("PUBLISHED")).isZero();
      assertThat(db.countOutbox("PENDING")).isEqualTo(200);
      assertThat(db.countDeadLetters()).isZero();

      broker.declareQueue(queue, false, exchange, Stepped.TYPE);
      broker.consume(queue, recorder::record);
      DeliveryCheck check = recorder.attach(DeliveryCheck.expecting(written.eventsPerAggregate()));
      assertThat(check.awaitComplete(Duration.ofSeconds(60))).as(check.summary()).isTrue();
      check.assertDeliveredInOrderExactlyOnce();
      await().atMost(Duration.ofSeconds(30)).until(() -> db.countOutbox("PUBLISHED") == 200);
    }
  }

  private RabbitMqEventPublisher publisher() {
    return new RabbitMqEventPublisher(
        RabbitMqPublisherOptions.builder()
            .host(RabbitMqTestBroker.HOST)
            .port(RabbitMqTestBroker.PORT)
            .exchange(exchange)
            .build());
  }

  /** Heads waiting on a message whose last attempt failed with an error containing the text. */
  private static long failedAttempts(E2eDatabase db, String errorText) throws Exception {
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT count(*) FROM "
                    + db.options().headTable()
                    + " WHERE write_seq > delivered_seq AND attempts > 0 AND last_error LIKE '%"
                    + errorText
                    + "%'")) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
