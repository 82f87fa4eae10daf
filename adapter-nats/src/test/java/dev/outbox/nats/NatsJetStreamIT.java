package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import io.nats.client.Message;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** What JetStream adds to the contract: de-duplication, stream creation, clear failures. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class NatsJetStreamIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

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

  private static NatsPublisherOptions.Builder options(String prefix) {
    return NatsPublisherOptions.builder()
        .servers(List.of(JetStreamFixture.URL))
        .subjectPrefix(prefix);
  }

  @Test
  void sameMessagePublishedTwiceIsStoredOnceAndBothCountAsPublished() throws Exception {
    String prefix = JetStreamFixture.unique("dedup");
    String stream = nats.createStream("DEDUP_" + prefix, prefix + ".>");
    OutboxMessage message = TestMessages.message("Order", "order-1");
    OutboxMessage other = TestMessages.message("Order", "order-2");

    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options(prefix).build())) {
      List<PublishResult> first = publisher.publish(List.of(message), TIMEOUT);
      List<PublishResult> again = publisher.publish(List.of(message, other, message), TIMEOUT);

      assertThat(first).allMatch(PublishResult::isPublished);
      assertThat(again).allMatch(PublishResult::isPublished);
    }
    assertThat(nats.count(stream)).isEqualTo(2);
    List<Message> stored = nats.read(stream, prefix + ".>", 2, TIMEOUT);
    assertThat(stored)
        .extracting(m -> m.getHeaders().getFirst("Nats-Msg-Id"))
        .containsExactly(message.id().toString(), other.id().toString());
  }

  @Test
  void messageWithoutAStreamFailsRetryablyNamingTheSubject() {
    String prefix = JetStreamFixture.unique("nostream");
    OutboxMessage message = TestMessages.message("Order", "order-1");

    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options(prefix).build())) {
      long start = System.nanoTime();
      PublishResult result = publisher.publish(List.of(message), TIMEOUT).get(0);

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(result.isPublished()).isFalse();
      assertThat(result.failure().isRetryable()).isTrue();
      assertThat(result.failure().destination()).isEqualTo(prefix + ".Order.order.placed");
      assertThat(result.failure().getMessage())
          .startsWith("no stream for subject " + prefix + ".Order.order.placed")
          .contains("503 no responders")
          .contains(message.id().toString());
    }
  }

  @Test
  void streamIsCreatedAtStartFromTheOptions() throws Exception {
    String prefix = JetStreamFixture.unique("create");
    String name = "CREATED_" + prefix;
    nats.deleteOnClose(name);
    NatsStreamOptions stream =
        NatsStreamOptions.builder()
            .create(true)
            .name(name)
            .duplicateWindow(Duration.ofMinutes(5))
            .build();
    OutboxMessage message = TestMessages.message("Order", "order-1");

    try (NatsEventPublisher publisher =
        NatsEventPublisher.connect(options(prefix).stream(stream).build())) {
      StreamConfiguration created = nats.info(name).getConfiguration();
      assertThat(created.getSubjects()).containsExactly(prefix + ".>");
      assertThat(created.getStorageType()).isEqualTo(StorageType.File);
      assertThat(created.getDuplicateWindow()).isEqualTo(Duration.ofMinutes(5));

      assertThat(publisher.publish(List.of(message), TIMEOUT)).allMatch(PublishResult::isPublished);
    }
    assertThat(nats.count(name)).isEqualTo(1);
  }

  @Test
  void streamDeletedWhileRunningIsCreatedAgainBeforeTheNextPublish() throws Exception {
    String prefix = JetStreamFixture.unique("recreate");
    String name = "RECREATE_" + prefix;
    nats.deleteOnClose(name);
    NatsStreamOptions stream = NatsStreamOptions.builder().create(true).name(name).build();

    try (NatsEventPublisher publisher =
        NatsEventPublisher.connect(options(prefix).stream(stream).build())) {
      JetStreamFixture.at(JetStreamFixture.URL).closeAfterDeleting(name);
      OutboxMessage lost = TestMessages.message("Order", "order-1");
      OutboxMessage next = TestMessages.message("Order", "order-2");

      assertThat(publisher.publish(List.of(lost), TIMEOUT).get(0).failure().getMessage())
          .startsWith("no stream for subject");
      assertThat(publisher.publish(List.of(next), TIMEOUT)).allMatch(PublishResult::isPublished);
    }
    assertThat(nats.count(name)).isEqualTo(1);
  }

  @Test
  void headerNatsCannotCarryFailsOnlyItsMessagePermanently() throws Exception {
    String prefix = JetStreamFixture.unique("header");
    String stream = nats.createStream("HEADER_" + prefix, prefix + ".>");
    OutboxMessage bad =
        TestMessages.message("Order", "order-1", "{}", Map.of("customer-name", "Zoë"));
    OutboxMessage good = TestMessages.message("Order", "order-2");

    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options(prefix).build())) {
      List<PublishResult> results = publisher.publish(List.of(bad, good), TIMEOUT);

      assertThat(results.get(0).failure().isRetryable()).isFalse();
      assertThat(results.get(0).failure().getMessage()).contains("header customer-name");
      assertThat(results.get(1).isPublished()).isTrue();
    }
    assertThat(nats.count(stream)).isEqualTo(1);
  }

  @Test
  void rowHeadersCannotSetJetStreamControlHeaders() throws Exception {
    String prefix = JetStreamFixture.unique("control");
    String stream = nats.createStream("CONTROL_" + prefix, prefix + ".>");
    OutboxMessage message =
        TestMessages.message(
            "Order", "order-1", "{}", Map.of("Nats-Msg-Id", "forged", "Nats-Expected-Stream", "X"));

    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options(prefix).build())) {
      assertThat(publisher.publish(List.of(message), TIMEOUT)).allMatch(PublishResult::isPublished);
    }
    Message stored = nats.read(stream, prefix + ".>", 1, TIMEOUT).get(0);
    assertThat(stored.getHeaders().get("Nats-Msg-Id")).containsExactly(message.id().toString());
    assertThat(stored.getHeaders().containsKey("Nats-Expected-Stream")).isFalse();
  }

  @Test
  void largeBatchIsAcknowledgedWithinTheTimeout() throws Exception {
    String prefix = JetStreamFixture.unique("large");
    String stream = nats.createStream("LARGE_" + prefix, prefix + ".>");
    List<OutboxMessage> batch = new ArrayList<>(TestMessages.batch("Order", 100, 50));

    try (NatsEventPublisher publisher = NatsEventPublisher.connect(options(prefix).build())) {
      long start = System.nanoTime();
      List<PublishResult> results = publisher.publish(batch, TIMEOUT);
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(results).hasSize(5_000).allMatch(PublishResult::isPublished);
      System.out.println("5000 messages acknowledged in " + took.toMillis() + " ms");
    }
    assertThat(nats.count(stream)).isEqualTo(5_000);
  }
}
