package dev.outbox.hibernate.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.hibernate.e2e.SimpleLoggerCapture.Record;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.fake.InMemoryBroker;
import dev.outbox.testkit.fake.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 20 on the real PostgreSQL: the outbox reaches the database through a {@link TcpProxy},
 * which is cut and stalled for a few seconds while the application goes on writing events (on its
 * own connection). The outbox's loggers say so in one line when the database becomes unreachable
 * and one when it is back, with no stack trace, and every event written is delivered, in order per
 * aggregate.
 */
class StoreOutageLogIT {

  private static final String TYPE = E2eAggregate.DEFAULT_TYPE;
  private static final String INSTANCE = "store-outage-it";
  private static final Duration OUTAGE = Duration.ofSeconds(5);

  @Test
  void databaseCutOffForSecondsIsOneUnreachableLineAndOneReachableAgainLineAndLosesNothing()
      throws Exception {
    InMemoryBroker broker = new InMemoryBroker();
    broker.declare(TYPE);
    Map<String, Integer> written = new HashMap<>();
    try (E2eDatabase db = E2eDatabase.start("storeoutage");
        TcpProxy proxy = new TcpProxy(RequiredServer.POSTGRES_HOST, RequiredServer.POSTGRES_PORT);
        SimpleLoggerCapture logs = new SimpleLoggerCapture()) {
      OutboxOptions options =
          db.options().toBuilder()
              .instanceId(INSTANCE)
              .batchSize(20)
              .publishTimeout(Duration.ofSeconds(2))
              .leaseDuration(Duration.ofSeconds(5))
              .build();
      DeliveryCheck check;
      try (SessionFactory throughProxy = sessionFactory(proxy.port(), options);
          Outbox outbox =
              HibernateOutbox.create(throughProxy, slow(broker.publisher(Flaw.NONE)), options)) {
        outbox.start();
        written.putAll(db.writer(TYPE).write(200, 20, 2).eventsPerAggregate());

        proxy.pause(); // new connections hang until the driver gives up
        proxy.cutConnections(); // the ones open fail at once
        long cut = System.nanoTime();
        written.putAll(db.writer(TYPE).write(100, 10, 1).eventsPerAggregate());
        Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - cut) / 1_000_000));
        proxy.resume();
        written.putAll(db.writer(TYPE).write(100, 10, 1).eventsPerAggregate());

        check = DeliveryCheck.expecting(written);
        AtomicBoolean consuming = new AtomicBoolean(true);
        Thread consumer = new Thread(() -> consume(broker, check, consuming));
        consumer.start();
        try {
          check.awaitComplete(Duration.ofSeconds(60));
        } finally {
          consuming.set(false);
          consumer.join();
        }
      }

      List<Record> outboxLines = logs.records("dev.outbox.");
      System.out.printf(
          "StoreOutageLogIT: %s%n  %s%n",
          check.summary(),
          String.join("\n  ", outboxLines.stream().map(Record::toString).toList()));
      check.assertDeliveredInOrder();
      assertThat(outboxLines)
          .filteredOn(line -> line.message().contains("store (database) unreachable"))
          .singleElement()
          .satisfies(
              line -> {
                assertThat(line.level()).isEqualTo("WARN");
                assertThat(line.message())
                    .startsWith("Outbox " + INSTANCE + ": store (database) unreachable while ")
                    .contains("retries every");
              });
      assertThat(outboxLines)
          .filteredOn(line -> line.message().contains("store (database) reachable again"))
          .singleElement()
          .satisfies(
              line -> {
                assertThat(line.level()).isEqualTo("INFO");
                assertThat(line.message())
                    .matches(
                        "Outbox "
                            + INSTANCE
                            + ": store \\(database\\) reachable again after [0-9.]+ (ms|s);"
                            + " [0-9]+ attempts? failed");
              });
      assertThat(outboxLines)
          .as("no other warning of the outbox, and no stack trace")
          .filteredOn(line -> line.level().equals("WARN") || line.level().equals("ERROR"))
          .hasSize(1);
      assertThat(outboxLines).allSatisfy(line -> assertThat(line.stackTraceLines()).isZero());
    }
  }

  /** A persistence unit on the proxy, with the outbox's tables and options of {@code db}. */
  private static SessionFactory sessionFactory(int port, OutboxOptions options) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres");
    // A connection the stalled proxy holds fails after a second: several attempts fail meanwhile.
    dataSource.setConnectTimeout(1);
    dataSource.setLoginTimeout(1);
    dataSource.setSocketTimeout(10);
    return new HibernatePersistenceConfiguration("outbox-store-outage")
        .managedClasses(E2eAggregate.class)
        .property("hibernate.connection.datasource", dataSource)
        .property(OutboxSettings.OPTIONS, options)
        .createEntityManagerFactory();
  }

  /** The broker's publisher, a little slow, so that batches are in flight when the cut comes. */
  private static EventPublisher slow(EventPublisher publisher) {
    return new EventPublisher() {
      @Override
      public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return publisher.publish(messages, timeout);
      }

      @Override
      public void close() {
        publisher.close();
      }
    };
  }

  private static void consume(InMemoryBroker broker, DeliveryCheck check, AtomicBoolean running) {
    try {
      while (running.get()) {
        for (ReceivedMessage message : broker.take(TYPE, 500, Duration.ofMillis(100))) {
          E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(message.body());
          check.record(message.key(), event.sequence(), message.messageId());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
