package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Batching against a broker that advertises a small max-message-size (8 KB), so that one publish
 * call needs several {@code ServiceBusMessageBatch}es, and a message larger than that fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class ServiceBusBatchingIT {

  private static final long MAX_MESSAGE_SIZE = 8 * 1024;
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private LocalServiceBus bus;
  private SdkReceivers receivers;

  @BeforeAll
  void start() {
    bus = LocalServiceBus.start(MAX_MESSAGE_SIZE);
    receivers = new SdkReceivers(bus.connectionString());
  }

  @AfterAll
  void stop() {
    receivers.close();
    bus.close();
  }

  private ServiceBusEventPublisher publisher(String queue, boolean sessions) {
    bus.createQueue(queue);
    return ServiceBusEventPublisher.create(
        ServiceBusPublisherOptions.builder()
            .connectionString(bus.connectionString())
            .entity(queue)
            .sessionEnabled(sessions)
            .build());
  }

  @Test
  void aBatchLargerThanTheLinkLimitGoesOutAsSeveralBatchesInOrder() {
    String queue = TestMessages.aggregateType("split");
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      batch.add(
          TestMessages.message(queue, "order-" + (i % 3), TestMessages.largeJsonPayload(1024)));
    }
    long batchesBefore = bus.batchTransfers();
    List<PublishResult> results;
    try (ServiceBusEventPublisher publisher = publisher(queue, false)) {
      results = publisher.publish(batch, TIMEOUT);
    }

    assertThat(results).allSatisfy(r -> assertThat(r.isPublished()).as("%s", r).isTrue());
    assertThat(bus.batchTransfers() - batchesBefore)
        .as("40 KB of messages through an 8 KB link: at least five batch transfers")
        .isGreaterThanOrEqualTo(5);
    List<ServiceBusReceivedMessage> received =
        receivers.receive(queue, null, null, batch.size(), TIMEOUT);
    assertThat(received)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactlyElementsOf(batch.stream().map(m -> m.id().toString()).toList());
  }

  @Test
  void aMessageLargerThanTheLimitFailsWithoutRetryAndTheOthersArePublished() {
    String queue = TestMessages.aggregateType("large");
    OutboxMessage small = TestMessages.message(queue, "order-1");
    OutboxMessage huge =
        TestMessages.message(queue, "order-2", TestMessages.largeJsonPayload(20 * 1024));
    OutboxMessage other = TestMessages.message(queue, "order-3");
    List<PublishResult> results;
    try (ServiceBusEventPublisher publisher = publisher(queue, false)) {
      results = publisher.publish(List.of(small, huge, other), TIMEOUT);
    }

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).isPublished()).isFalse();
    assertThat(results.get(1).failure().isRetryable()).isFalse();
    assertThat(results.get(1).failure()).hasMessageContaining("maximum message size");
    assertThat(results.get(2).isPublished()).isTrue();
    assertThat(receivers.receive(queue, null, null, 2, TIMEOUT))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly(small.id().toString(), other.id().toString());
  }

  @Test
  void laterMessagesOfAnAggregateWhoseMessageFailedAreNotSentAhead() {
    String queue = TestMessages.aggregateType("hold");
    OutboxMessage huge =
        TestMessages.message(queue, "order-1", TestMessages.largeJsonPayload(20 * 1024));
    OutboxMessage next = TestMessages.message(queue, "order-1");
    List<PublishResult> results;
    try (ServiceBusEventPublisher publisher = publisher(queue, false)) {
      results = publisher.publish(List.of(huge, next), TIMEOUT);
    }

    assertThat(results.get(1).isPublished()).isFalse();
    assertThat(results.get(1).failure().isRetryable()).isTrue();
    assertThat(results.get(1).failure()).hasMessageContaining("earlier message");
  }

  @Test
  void sessionEnabledEntitiesGetTheAggregateIdAsSessionIdAndCorrelationIdFromTheHeader() {
    String queue = TestMessages.aggregateType("session");
    OutboxMessage message = TestMessages.message(queue, "order-9");
    try (ServiceBusEventPublisher publisher = publisher(queue, true)) {
      assertThat(publisher.publish(List.of(message), TIMEOUT).get(0).isPublished()).isTrue();
    }

    ServiceBusReceivedMessage received = receivers.receive(queue, null, null, 1, TIMEOUT).get(0);
    assertThat(received.getSessionId()).isEqualTo("order-9");
    assertThat(received.getPartitionKey()).isNull();
    assertThat(received.getSubject()).isEqualTo(message.eventType());
    assertThat(received.getCorrelationId()).isEqualTo(message.headers().get("correlation-id"));
  }
}
