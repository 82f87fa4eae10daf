package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Behaviour that needs no broker: the port of the connection string is never connected to. */
class ServiceBusEventPublisherTest {

  private static ServiceBusPublisherOptions.Builder options() {
    return ServiceBusPublisherOptions.builder()
        .connectionString(
            "Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;"
                + "UseDevelopmentEmulator=true;");
  }

  @Test
  void aMessageWithoutEntityFailsWithoutRetryAndNothingIsThrown() {
    List<OutboxMessage> batch = TestMessages.batch("orders", 2, 2);
    try (ServiceBusEventPublisher publisher =
        ServiceBusEventPublisher.create(
            options()
                .entityResolver(
                    m -> {
                      throw new IllegalStateException("no route for " + m.aggregateType());
                    })
                .build())) {
      List<PublishResult> results = publisher.publish(batch, Duration.ofSeconds(2));

      assertThat(results)
          .extracting(PublishResult::messageId)
          .containsExactlyElementsOf(batch.stream().map(OutboxMessage::id).toList());
      assertThat(results)
          .allSatisfy(
              r -> {
                assertThat(r.failure().isRetryable()).isFalse();
                assertThat(r.failure()).hasMessageContaining("no route for orders");
              });
    }
  }

  @Test
  void aClosedPublisherFailsEveryMessageAsNoFaultOfTheMessage() {
    ServiceBusEventPublisher publisher = ServiceBusEventPublisher.create(options().build());
    publisher.close();
    publisher.close();

    List<PublishResult> results =
        publisher.publish(TestMessages.batch("orders", 1, 3), Duration.ofSeconds(1));

    assertThat(results)
        .hasSize(3)
        .allSatisfy(
            r -> {
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure().isBrokerFault()).isTrue();
            });
  }

  @Test
  void creatingThePublisherDoesNotConnect() {
    long start = System.nanoTime();
    try (ServiceBusEventPublisher publisher = ServiceBusEventPublisher.create(options().build())) {
      assertThat(publisher.toString()).doesNotContain("SharedAccessKey=v");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }
}
