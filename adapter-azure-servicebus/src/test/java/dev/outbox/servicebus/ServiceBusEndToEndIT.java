package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.QueueConsumer;
import dev.outbox.servicebus.testing.TimedPublisher;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole path on PostgreSQL: aggregates write events in their transactions, the outbox publishes
 * them through the real SDK to the local broker, a consumer receives them.
 */
@Timeout(180)
class ServiceBusEndToEndIT {

  private static final String QUEUE = "e2e-servicebus";

  private LocalServiceBus bus;
  private E2eDatabase db;

  @BeforeEach
  void start() {
    db = E2eDatabase.start("servicebus");
    bus = LocalServiceBus.start(LocalServiceBus.STANDARD_MAX_MESSAGE_SIZE);
    bus.createQueue(QUEUE);
  }

  @AfterEach
  void stop() {
    if (bus != null) {
      bus.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private TimedPublisher publisher(Duration tryTimeout) {
    return new TimedPublisher(
        ServiceBusEventPublisher.create(
            ServiceBusPublisherOptions.builder()
                .connectionString(bus.connectionString())
                .entity(QUEUE)
                .tryTimeout(tryTimeout)
                .build()));
  }

  private static void record(DeliveryCheck check, ServiceBusReceivedMessage message) {
    E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(message.getBody().toBytes());
    check.record(message.getPartitionKey(), event.sequence(), message.getMessageId());
  }

  @Test
  void fiveThousandEventsOfFiftyAggregatesArriveInOrderPerAggregateEachOnce() throws Exception {
    TimedPublisher publisher = publisher(Duration.ofSeconds(5));
    long start = System.nanoTime();
    DeliveryCheck check;
    Duration writtenIn;
    try (Outbox outbox = db.outbox(publisher)) {
      outbox.start();
      EventWriter.Written written = db.writer(E2eAggregate.DEFAULT_TYPE).write(5_000, 50, 4);
      check = DeliveryCheck.expecting(written.eventsPerAggregate());
      writtenIn = written.took();
      QueueConsumer consumer =
          new QueueConsumer(bus.connectionString(), QUEUE, m -> record(check, m));
      try {
        assertThat(check.awaitComplete(Duration.ofSeconds(120))).as(check.summary()).isTrue();
        Thread.sleep(500); // a late duplicate would show now
      } finally {
        consumer.close();
      }
    }
    System.out.printf(
        "ServiceBusEndToEndIT: 5000 events, 50 aggregates: written in %d ms, received in %d ms"
            + " from the start; %d publish calls taking %d ms in all: %s%n",
        writtenIn.toMillis(),
        Duration.ofNanos(System.nanoTime() - start).toMillis(),
        publisher.calls().size(),
        publisher.calls().stream().mapToLong(c -> c.took().toMillis()).sum(),
        check.summary());
    check.assertDeliveredInOrderExactlyOnce();
  }

  /**
   * Stops the broker while events are being written and published, restarts it, and checks that the
   * queue holds every event in order per aggregate. No publish call during the outage publishes
   * anything or takes longer than the publish timeout: its messages fail, or are uncertain when a
   * send was under way, and every uncertain one gets a final outcome. The check reads the broker's
   * store, not a receiver: in {@code RECEIVE_AND_DELETE} mode (the only one the local broker
   * emulates) the SDK receiver can lose what it prefetched, which would say nothing about the
   * outbox.
   */
  @Test
  void brokerOutagePublishesNothingWithinThePublishTimeoutAndEveryEventArrivesAfterTheRestart()
      throws Exception {
    Duration publishTimeout = Duration.ofSeconds(3);
    OutboxOptions options = db.options().toBuilder().publishTimeout(publishTimeout).build();
    TimedPublisher publisher = publisher(Duration.ofSeconds(1));
    ExecutorService writing = Executors.newSingleThreadExecutor();
    try (Outbox outbox = db.outbox(publisher, options)) {
      outbox.start();
      Future<EventWriter.Written> written =
          writing.submit(
              () ->
                  db.writer(E2eAggregate.DEFAULT_TYPE).eventsPerTransaction(1).write(3_000, 30, 2));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> publisher.calls().stream().anyMatch(c -> c.failed() < c.messages()));
      bus.stop();
      long stopped = System.nanoTime();
      Thread.sleep(publishTimeout.multipliedBy(3).toMillis());
      long restarted = System.nanoTime();
      bus.restart();
      List<TimedPublisher.Call> outageCalls =
          publisher.calls().stream()
              .filter(c -> c.startedNanos() > stopped && c.endedNanos() < restarted)
              .toList();
      EventWriter.Written all = written.get(2, TimeUnit.MINUTES);
      await("every row published after the restart")
          .atMost(Duration.ofSeconds(90))
          .until(() -> db.countOutbox("PENDING") == 0);
      long published = System.nanoTime();
      List<LocalServiceBus.StoredMessage> stored = bus.storedMessages(QUEUE);
      DeliveryCheck check = DeliveryCheck.expecting(all.eventsPerAggregate());
      for (LocalServiceBus.StoredMessage message : stored) {
        check.record(
            message.partitionKey(),
            E2eAggregate.Stepped.parse(message.body()).sequence(),
            message.messageId());
      }
      System.out.printf(
          "ServiceBusEndToEndIT outage: %d calls while down %s (not published/uncertain/all);"
              + " all %d events published %d ms after the restart; %s%n",
          outageCalls.size(),
          outageCalls.stream()
              .map(c -> c.failed() + "/" + c.uncertain() + "/" + c.messages() + " in " + c.took())
              .toList(),
          all.total(),
          Duration.ofNanos(published - restarted).toMillis(),
          check.summary());
      assertThat(outageCalls)
          .as("publish calls while the broker was down")
          .isNotEmpty()
          .allSatisfy(call -> assertThat(call.failed()).isEqualTo(call.messages()))
          .allSatisfy(call -> assertThat(call.took()).isLessThan(publishTimeout.plusSeconds(2)));
      assertThat(publisher.finalOutcomes())
          .as("every uncertain send has its final outcome by now")
          .allSatisfy(
              outcome ->
                  assertThat(outcome.getNow(null))
                      .isNotNull()
                      .satisfies(last -> assertThat(last.isUncertain()).isFalse()));
      check.assertDeliveredInOrder();
    } finally {
      writing.shutdownNow();
    }
  }
}
