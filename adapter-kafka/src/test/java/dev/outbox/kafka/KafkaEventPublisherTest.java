package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.PublishResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the publisher does without any broker: it must still start, answer and never throw. */
class KafkaEventPublisherTest {

  private static KafkaEventPublisher publisherTo(String bootstrapServers) {
    return new KafkaEventPublisher(
        KafkaPublisherOptions.builder()
            .bootstrapServers(bootstrapServers)
            .metadataTimeout(Duration.ofSeconds(1))
            .closeTimeout(Duration.ofMillis(200))
            .build());
  }

  @Test
  void unresolvableBrokerHostDoesNotFailCreationAndFailsPublishAsTheBrokersFaultInTime() {
    try (KafkaEventPublisher publisher = publisherTo("kafka.invalid:9092")) {
      OutboxMessage message = KafkaPublisherOptionsTest.message("Order");

      long start = System.nanoTime();
      List<PublishResult> results = publisher.publish(List.of(message), Duration.ofSeconds(2));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(took).isLessThan(Duration.ofSeconds(3));
      assertThat(results)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.messageId()).isEqualTo(message.id());
                assertThat(r.failure().isBrokerFault()).as("%s", r.failure()).isTrue();
                assertThat(r.failure().isRetryable()).isTrue();
              });
    }
  }

  @Test
  void routerThatThrowsFailsOnlyItsMessageAndNotRetryably() {
    KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            KafkaPublisherOptions.builder()
                .bootstrapServers("127.0.0.1:1")
                .metadataTimeout(Duration.ofSeconds(1))
                .closeTimeout(Duration.ofMillis(200))
                .topicRouter(
                    m -> {
                      if (m.aggregateType().equals("Bad")) {
                        throw new IllegalStateException("no topic for Bad");
                      }
                      return m.aggregateType();
                    })
                .build());
    try (publisher) {
      OutboxMessage bad = KafkaPublisherOptionsTest.message("Bad");
      OutboxMessage good = KafkaPublisherOptionsTest.message("Good");

      List<PublishResult> results = publisher.publish(List.of(bad, good), Duration.ofSeconds(1));

      assertThat(results).extracting(PublishResult::messageId).containsExactly(bad.id(), good.id());
      assertThat(results.get(0).failure().isRetryable()).isFalse();
      assertThat(results.get(0).failure().isBrokerFault()).isFalse();
      assertThat(results.get(0).failure()).hasMessageContaining("no topic for Bad");
      assertThat(results.get(1).failure().isRetryable()).isTrue();
      assertThat(results.get(1).failure().isBrokerFault())
          .as("nothing listens: %s", results.get(1).failure())
          .isTrue();
    }
  }

  @Test
  void emptyBatchGivesNoResults() {
    try (KafkaEventPublisher publisher = publisherTo("127.0.0.1:1")) {
      assertThat(publisher.publish(List.of(), Duration.ofSeconds(1))).isEmpty();
    }
  }

  @Test
  void closedPublisherFailsAsTheBrokersFaultInsteadOfThrowingAndClosesOnce() {
    KafkaEventPublisher publisher = publisherTo("127.0.0.1:1");
    publisher.close();
    publisher.close();

    List<PublishResult> results =
        publisher.publish(
            List.of(KafkaPublisherOptionsTest.message("Order")), Duration.ofSeconds(1));

    assertThat(results)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.isPublished()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure().isBrokerFault()).isTrue();
              assertThat(r.failure()).hasMessageContaining("closed");
            });
  }

  @Test
  void secretsDoNotReachTheLogs() {
    String secret = "hunter2-in-the-logs";
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try (KafkaEventPublisher publisher =
        new KafkaEventPublisher(
            KafkaPublisherOptions.builder()
                .bootstrapServers("127.0.0.1:1")
                .metadataTimeout(Duration.ofMillis(500))
                .closeTimeout(Duration.ofMillis(200))
                .producerProperty("ssl.keystore.password", secret)
                .producerProperty("ssl.truststore.password", secret)
                .build())) {
      publisher.publish(List.of(KafkaPublisherOptionsTest.message("Order")), Duration.ofSeconds(1));
    } finally {
      System.setErr(original);
    }

    String logs = captured.toString(StandardCharsets.UTF_8);
    assertThat(logs).contains("Kafka publisher created").contains("ssl.keystore.password=****");
    assertThat(logs).doesNotContain(secret);
  }

  @Test
  void deliveryTimeoutThatOutlivesTheHardCapIsWarnedOnceWithTheFix() {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try (KafkaEventPublisher publisher = publisherTo("127.0.0.1:1")) {
      for (int i = 0; i < 2; i++) {
        publisher.publish(
            List.of(KafkaPublisherOptionsTest.message("Order")), Duration.ofMillis(500));
      }
    } finally {
      System.setErr(original);
    }

    String logs = captured.toString(StandardCharsets.UTF_8);
    assertThat(logs.split("delivery.timeout.ms \\(30000 ms\\)", -1)).hasSize(2);
    assertThat(logs).contains("set delivery.timeout.ms below 1000 ms");
  }
}
