package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.nats.testing.NatsServerProcess;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import io.nats.client.Message;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A NATS outage on a second nats-server that the test starts on a free loopback port, stops or
 * freezes, and brings back on the same port and store directory.
 */
@Timeout(180)
class NatsOutageIT {

  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration MARGIN = Duration.ofSeconds(2);
  private static final String STREAM = "OUTAGE";

  private NatsServerProcess server;

  @BeforeEach
  void startServer() throws Exception {
    server = NatsServerProcess.start();
    try (JetStreamFixture setup = JetStreamFixture.at(server.url())) {
      setup.createStream(STREAM, "outage.>");
      setup.keep(STREAM); // lives in the server's temporary store
    }
  }

  @AfterEach
  void killServer() {
    if (server != null) {
      server.close();
    }
  }

  private NatsPublisherOptions options() {
    return NatsPublisherOptions.builder()
        .servers(List.of(server.url()))
        .subjectPrefix("outage")
        .reconnectWait(Duration.ofMillis(200))
        .build();
  }

  @Test
  void stoppedServerFailsPublishRetryablyInTimeAndOutboxDeliversWhenItIsBack() throws Exception {
    NatsEventPublisher publisher = NatsEventPublisher.connect(options());
    try (E2eDatabase db = E2eDatabase.start("nats_outage");
        Outbox outbox =
            db.outbox(
                publisher, db.options().toBuilder().publishTimeout(PUBLISH_TIMEOUT).build())) {
      outbox.start();
      assertThat(publisher.publish(batch(), PUBLISH_TIMEOUT)).allMatch(PublishResult::isPublished);

      server.stop();
      List<PublishResult> down = timedPublish(publisher);
      EventWriter.Written written = db.writer(E2eAggregate.DEFAULT_TYPE).write(300, 10, 2);
      Thread.sleep(1_000);
      assertThat(db.countOutbox("PENDING")).as("pending while NATS is down").isEqualTo(300);

      server.restart();
      await().atMost(Duration.ofSeconds(60)).until(() -> db.countOutbox("PENDING") == 0);

      assertThat(down)
          .allSatisfy(NatsOutageIT::assertRetryableFailure)
          .allSatisfy(NatsOutageIT::assertBrokerFaultInTheEnd);
      assertThat(db.countDeadLetters()).isZero();
      DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
      String subjects = "outage." + E2eAggregate.DEFAULT_TYPE + ".>";
      try (JetStreamFixture nats = JetStreamFixture.at(server.url())) {
        for (Message message : nats.read(STREAM, subjects, 300, Duration.ofSeconds(30))) {
          check.record(
              message.getHeaders().getFirst(WireHeaders.AGGREGATE_ID),
              E2eAggregate.Stepped.parse(message.getData()).sequence(),
              message.getHeaders().getFirst("Nats-Msg-Id"));
        }
      }
      System.out.println("NATS outage: " + check.summary());
      check.assertDeliveredInOrderExactlyOnce();
    }
  }

  @Test
  void sendsToAFrozenServerAreUncertainWithinTheTimeoutGetAFinalOutcomeAndItRecovers()
      throws Exception {
    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options())) {
      server.freeze();
      List<PublishResult> frozen = timedPublish(publisher);
      server.thaw();

      // Sent but not acknowledged: they may still be stored, so they are not plain failures.
      assertThat(frozen)
          .allSatisfy(NatsOutageIT::assertRetryableFailure)
          .allSatisfy(r -> assertThat(r.isUncertain()).isTrue());
      for (PublishResult result : frozen) {
        PublishResult last =
            result
                .finalOutcome()
                .toCompletableFuture()
                .get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(last.isUncertain()).as("the final outcome is final").isFalse();
        assertBrokerFaultInTheEnd(last);
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> publisher.publish(batch(), PUBLISH_TIMEOUT).get(0).isPublished());
    }
  }

  private static List<OutboxMessage> batch() {
    return TestMessages.batch("Order", 3, 2);
  }

  private static List<PublishResult> timedPublish(NatsEventPublisher publisher) {
    List<OutboxMessage> batch = batch();
    long start = System.nanoTime();
    List<PublishResult> results = publisher.publish(batch, PUBLISH_TIMEOUT);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    System.out.println("publish during the outage returned after " + took.toMillis() + " ms");
    assertThat(took).isLessThan(PUBLISH_TIMEOUT.plus(MARGIN));
    assertThat(results).hasSize(batch.size());
    return results;
  }

  /**
   * Published (the server stored it after all), or failed for the broker, not the message: a server
   * that is away is no message's fault.
   */
  private static void assertBrokerFaultInTheEnd(PublishResult result) {
    PublishResult last =
        result.isUncertain() ? result.finalOutcome().toCompletableFuture().join() : result;
    if (!last.isPublished()) {
      assertThat(last.failure().isBrokerFault()).as("broker fault: %s", last.failure()).isTrue();
    }
  }

  private static void assertRetryableFailure(PublishResult result) {
    assertThat(result.isPublished()).isFalse();
    assertThat(result.failure().isRetryable()).as("retryable: %s", result.failure()).isTrue();
  }
}
