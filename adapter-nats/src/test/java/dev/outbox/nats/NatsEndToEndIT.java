package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.Outbox;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.e2e.DeliveryCheck;
import io.nats.client.Message;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The whole path on PostgreSQL and the real nats-server: Hibernate writes the events, the outbox
 * publishes them through {@link NatsEventPublisher}, and a JetStream consumer reads them back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class NatsEndToEndIT {

  private JetStreamFixture nats;

  @BeforeAll
  void connect() throws Exception {
    nats = JetStreamFixture.local();
  }

  @AfterAll
  void deleteStreams() throws Exception {
    if (nats != null) {
      nats.close();
    }
  }

  @Test
  void tenThousandEventsOfHundredAggregatesArriveEachOnceInOrderPerAggregate() throws Exception {
    String prefix = JetStreamFixture.unique("e2e").replace('-', '_');
    String stream = nats.createStream("E2E_" + prefix, prefix + ".>");
    NatsPublisherOptions options =
        NatsPublisherOptions.builder()
            .servers(List.of(JetStreamFixture.URL))
            .subjectPrefix(prefix)
            .build();

    try (E2eDatabase db = E2eDatabase.start("nats");
        Outbox outbox = db.outbox(NatsEventPublisher.connect(options))) {
      outbox.start();
      long start = System.nanoTime();
      EventWriter.Written written =
          db.writer(E2eAggregate.DEFAULT_TYPE).eventsPerTransaction(10).write(10_000, 100, 4);

      List<Message> received =
          nats.read(stream, prefix + ".>", written.total(), Duration.ofMinutes(3));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
      for (Message message : received) {
        E2eAggregate.Stepped event = E2eAggregate.Stepped.parse(message.getData());
        check.record(
            message.getHeaders().getFirst(WireHeaders.AGGREGATE_ID),
            event.sequence(),
            message.getHeaders().getFirst("Nats-Msg-Id"));
      }
      System.out.printf(
          "NATS end to end: written in %d ms, %s in %d ms%n",
          written.took().toMillis(), check.summary(), took.toMillis());
      check.assertDeliveredInOrderExactlyOnce();
      assertThat(db.countDeadLetters()).isZero();
      assertThat(nats.count(stream)).isEqualTo(10_000);
    }
  }
}
