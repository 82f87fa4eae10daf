package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.kafka.testing.TestConsumer;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * How the Kafka publisher reports what a real broker refuses, and how it sends a call, beyond the
 * shared contract.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class KafkaPublisherFailuresIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private EmbeddedKafka kafka;
  private KafkaEventPublisher publisher;

  @BeforeAll
  void startKafka() {
    kafka = EmbeddedKafka.start();
  }

  @AfterEach
  void closePublisher() {
    if (publisher != null) {
      publisher.close();
    }
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void missingTopicIsTheMessagesFaultRetryablyAfterTheMetadataTimeoutNotThePublishTimeout() {
    publisher = publisher(KafkaPublisherOptions.builder().metadataTimeout(Duration.ofSeconds(1)));
    List<OutboxMessage> batch = TestMessages.batch(TestMessages.aggregateType("missing"), 2, 3);

    long start = System.nanoTime();
    List<PublishResult> results = publisher.publish(batch, TIMEOUT);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).isLessThan(Duration.ofSeconds(3));
    assertThat(results).hasSize(6);
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.isPublished()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure().isBrokerFault()).as("%s", r.failure()).isFalse();
              assertThat(r.failure()).hasMessageContaining(batch.get(0).aggregateType());
            });
  }

  @Test
  void topicCreatedAfterAFailureIsPublishedToOnTheNextAttempt() {
    publisher = publisher(KafkaPublisherOptions.builder().metadataTimeout(Duration.ofSeconds(1)));
    OutboxMessage message = TestMessages.message(TestMessages.aggregateType("late"), "order-1");
    assertThat(publisher.publish(List.of(message), TIMEOUT).get(0).isPublished()).isFalse();

    kafka.createTopic(message.aggregateType(), 1);

    assertThat(publisher.publish(List.of(message), TIMEOUT).get(0).failure()).isNull();
  }

  @Test
  void invalidTopicNameIsNotRetryable() {
    publisher = publisher(KafkaPublisherOptions.builder().topicRouter(m -> "no spaces allowed"));
    OutboxMessage message = TestMessages.message(TestMessages.aggregateType("invalid"), "order-1");

    PublishResult result = publisher.publish(List.of(message), TIMEOUT).get(0);

    assertThat(result.isPublished()).isFalse();
    assertThat(result.failure().isRetryable()).as("%s", result.failure()).isFalse();
  }

  @Test
  void recordTooLargeIsNotRetryableAndHoldsBackLaterEventsOfItsAggregate() {
    String type = TestMessages.aggregateType("large");
    kafka.createTopic(type, 1);
    publisher = publisher(KafkaPublisherOptions.builder());
    OutboxMessage tooLarge =
        TestMessages.message(type, "order-1", TestMessages.largeJsonPayload(2 * 1024 * 1024));
    OutboxMessage after = TestMessages.message(type, "order-1");
    OutboxMessage other = TestMessages.message(type, "order-2");

    List<PublishResult> results = publisher.publish(List.of(tooLarge, after, other), TIMEOUT);

    assertThat(results.get(0).failure().isRetryable()).isFalse();
    assertThat(results.get(0).failure()).hasCauseInstanceOf(RecordTooLargeException.class);
    assertThat(results.get(1).failure().isRetryable()).isTrue();
    assertThat(results.get(1).failure()).hasMessageContaining("an earlier message of");
    assertThat(results.get(2).isPublished()).isTrue();
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      List<ConsumerRecord<String, byte[]>> received =
          new ArrayList<>(consumer.poll(1, Duration.ofSeconds(60)));
      received.addAll(consumer.poll(1, Duration.ofSeconds(2))); // anything after it would show
      assertThat(received)
          .extracting(r -> TestConsumer.headers(r).get(WireHeaders.MESSAGE_ID))
          .containsExactly(other.id().toString());
    }
  }

  @Test
  void sendsToAStoppedBrokerFailOrStayUncertainWithinTheTimeoutAndNoneLandsTwice()
      throws Exception {
    String type = TestMessages.aggregateType("restart");
    kafka.createTopic(type, 2);
    publisher = publisher(KafkaPublisherOptions.builder());
    assertThat(publisher.publish(List.of(TestMessages.message(type, "warm-up")), TIMEOUT))
        .allSatisfy(r -> assertThat(r.isPublished()).isTrue());
    List<OutboxMessage> batch = TestMessages.batch(type, 2, 5);

    kafka.stop();
    List<PublishResult> down;
    Duration took;
    try {
      long start = System.nanoTime();
      down = publisher.publish(batch, Duration.ofSeconds(3));
      took = Duration.ofNanos(System.nanoTime() - start);
    } finally {
      kafka.restart();
    }

    assertThat(took).isLessThan(Duration.ofSeconds(4));
    // A record the producer holds may still land (uncertain); one it never got (the broker's
    // metadata went with it) is the broker's fault. Nothing counts as published.
    assertThat(down)
        .allSatisfy(
            r -> {
              assertThat(r.isPublished()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.isUncertain() || r.failure().isBrokerFault())
                  .as("%s", r.failure())
                  .isTrue();
            });
    List<String> landed = new java.util.ArrayList<>();
    for (int i = 0; i < down.size(); i++) {
      if (down.get(i).isUncertain()) {
        PublishResult last =
            down.get(i).finalOutcome().toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(last.isUncertain()).isFalse();
        if (last.isPublished()) {
          landed.add(batch.get(i).id().toString());
        }
      }
    }
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      assertThat(consumer.poll(1 + landed.size(), Duration.ofSeconds(60)))
          .extracting(r -> TestConsumer.headers(r).get(WireHeaders.MESSAGE_ID))
          .doesNotHaveDuplicates()
          .containsAll(landed);
    }
    assertThat(publisher.publish(batch, TIMEOUT))
        .as("after the restart")
        .allSatisfy(r -> assertThat(r.isPublished()).as("%s", r.failure()).isTrue());
  }

  @Test
  void aRecreatedClientEndsWhatTheOldOneHeldAtOnceAndTheNextCallPublishes() throws Exception {
    String type = TestMessages.aggregateType("recreate");
    kafka.createTopic(type, 2);
    // A produce quota of one byte per second for this client id: the broker delays its answers by
    // the longest throttle it has, so the producer still holds the sends when the call returns,
    // and the broker may well have appended them (a send that "may still land").
    String clientId = "outbox-" + type;
    ClientQuotaEntity client = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId));
    try (Admin admin = kafka.admin()) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      client, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0)))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    publisher =
        publisher(
            KafkaPublisherOptions.builder()
                .clientId(clientId)
                .producerProperty("delivery.timeout.ms", "120000"));
    List<OutboxMessage> batch = TestMessages.batch(type, 2, 5);
    List<PublishResult> first = publisher.publish(batch.subList(0, 2), TIMEOUT);
    List<PublishResult> held = publisher.publish(batch, Duration.ofMillis(500));

    assertThat(held)
        .as("held by the producer (%s before)", first)
        .anyMatch(PublishResult::isUncertain);
    publisher.recreateClient();
    for (PublishResult result : held) {
      PublishResult last =
          result.isUncertain()
              ? result.finalOutcome().toCompletableFuture().get(10, TimeUnit.SECONDS)
              : result;
      assertThat(last.isPublished()).as("ended by the closed producer: %s", last).isFalse();
      assertThat(last.failure().isRetryable()).isTrue();
      assertThat(last.failure().isBrokerFault()).as("%s", last.failure()).isTrue();
    }

    try (Admin admin = kafka.admin()) {
      admin
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      client, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", null)))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    assertThat(publisher.publish(batch, TIMEOUT))
        .as("a new producer")
        .allSatisfy(r -> assertThat(r.isPublished()).as("%s", r.failure()).isTrue());
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      // What the old producer's broker appended may be there twice: at least once, never lost.
      assertThat(consumer.poll(batch.size(), Duration.ofSeconds(60)))
          .extracting(r -> TestConsumer.headers(r).get(WireHeaders.MESSAGE_ID))
          .containsAll(batch.stream().map(m -> m.id().toString()).toList());
    }
  }

  @Test
  void aCallIsSentAsSoonAsItsRecordsAreAppendedWhateverTheLinger() {
    String type = TestMessages.aggregateType("flushed");
    kafka.createTopic(type, 2);
    // 15 s of linger (at most delivery.timeout.ms - request.timeout.ms): without the call's flush
    // its records would wait for all of it, three times the call's timeout.
    publisher = publisher(KafkaPublisherOptions.builder().producerProperty("linger.ms", "15000"));
    List<OutboxMessage> batch = TestMessages.batch(type, 3, 4);

    List<PublishResult> results = publisher.publish(batch, Duration.ofSeconds(5));

    assertThat(results).allSatisfy(r -> assertThat(r.isPublished()).as("%s", r.failure()).isTrue());
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      assertThat(consumer.poll(12, Duration.ofSeconds(60)))
          .extracting(r -> TestConsumer.headers(r).get(WireHeaders.MESSAGE_ID))
          .containsExactlyInAnyOrderElementsOf(batch.stream().map(m -> m.id().toString()).toList());
    }
  }

  private KafkaEventPublisher publisher(KafkaPublisherOptions.Builder builder) {
    return new KafkaEventPublisher(builder.bootstrapServers(kafka.bootstrapServers()).build());
  }
}
