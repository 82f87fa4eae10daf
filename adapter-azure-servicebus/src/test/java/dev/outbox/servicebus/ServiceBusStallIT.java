package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A namespace that is reachable but does not answer: the SDK talks to the local broker through a
 * {@link TcpProxy} that the test stalls (the connection stays open, nothing gets through either
 * way). Sends that started and were not answered within the publish timeout are uncertain, and
 * their final outcome is what the SDK reports later.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class ServiceBusStallIT {

  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private LocalServiceBus bus;
  private SdkReceivers receivers;
  private TcpProxy proxy;
  private String queue;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  void startBroker() {
    bus = LocalServiceBus.start(LocalServiceBus.STANDARD_MAX_MESSAGE_SIZE);
    receivers = new SdkReceivers(bus.connectionString());
  }

  @AfterAll
  void stopBroker() {
    if (receivers != null) {
      receivers.close();
    }
    if (bus != null) {
      bus.close();
    }
  }

  @BeforeEach
  void queueAndProxy() throws Exception {
    queue = TestMessages.aggregateType("stall");
    bus.createQueue(queue);
    proxy = new TcpProxy("127.0.0.1", bus.port());
  }

  @AfterEach
  void closeAll() throws Exception {
    proxy.close();
    for (AutoCloseable closeable : toClose) {
      closeable.close();
    }
    toClose.clear();
  }

  @Test
  void sendsToAStalledNamespaceAreUncertainWithinTheTimeoutAndLandOnceWhenItAnswers()
      throws Exception {
    // A try timeout longer than the stall: the SDK keeps waiting for the first answer.
    ServiceBusEventPublisher publisher = publisher(Duration.ofSeconds(15));
    OutboxMessage warmUp = warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch(queue, 5, 2);

    proxy.pause();
    List<PublishResult> stalled;
    try {
      stalled = timedPublish(publisher, batch);
    } finally {
      proxy.resume();
    }

    assertUncertain(stalled, batch);
    for (PublishResult result : stalled) {
      PublishResult last = finalOf(result);
      assertThat(last.isUncertain()).as("the final outcome is final").isFalse();
      assertThat(last.isPublished()).as("answered late: %s", last.failure()).isTrue();
    }
    List<String> expected = new ArrayList<>();
    expected.add(warmUp.id().toString());
    batch.forEach(message -> expected.add(message.id().toString()));
    assertThat(bus.storedMessages(queue))
        .extracting(LocalServiceBus.StoredMessage::messageId)
        .as("the queue holds the warm-up and each message of the batch once")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(receivers.receive(queue, null, null, expected.size(), TIMEOUT))
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .as("a consumer sees each once")
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(publisher.publish(List.of(TestMessages.message(queue, "after")), TIMEOUT))
        .allMatch(PublishResult::isPublished);
  }

  @Test
  void theTryTimeoutOfTheSdkEndsAnUnansweredSendWithARetryableFinalOutcome() throws Exception {
    Duration tryTimeout = Duration.ofSeconds(4);
    ServiceBusEventPublisher publisher = publisher(tryTimeout);
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch(queue, 2, 2);

    proxy.pause();
    List<PublishResult> stalled;
    List<PublishResult> finals = new ArrayList<>();
    long start = System.nanoTime();
    try {
      stalled = timedPublish(publisher, batch);
      for (PublishResult result : stalled) {
        finals.add(finalOf(result));
      }
    } finally {
      proxy.resume();
    }
    Duration settled = Duration.ofNanos(System.nanoTime() - start);

    assertUncertain(stalled, batch);
    assertThat(settled)
        .as("the SDK gives up at its try timeout, with no answer from the broker")
        .isBetween(tryTimeout.minusMillis(500), tryTimeout.plusSeconds(5));
    assertThat(finals)
        .allSatisfy(
            last -> {
              assertThat(last.isUncertain()).isFalse();
              assertThat(last.isPublished()).isFalse();
              assertThat(last.failure().isRetryable()).isTrue();
              assertThat(last.failure()).hasMessageContaining("may or may not have the message");
            });
  }

  @Test
  void closingThePublisherCompletesTheFinalOutcomesOfUnansweredSends() throws Exception {
    ServiceBusEventPublisher publisher = publisher(Duration.ofSeconds(15));
    warmUp(publisher);
    List<OutboxMessage> batch = TestMessages.batch(queue, 2, 2);

    proxy.pause();
    List<PublishResult> stalled;
    List<PublishResult> finals = new ArrayList<>();
    try {
      stalled = timedPublish(publisher, batch);
      publisher.close();
      for (PublishResult result : stalled) {
        finals.add(result.finalOutcome().toCompletableFuture().get(1, TimeUnit.SECONDS));
      }
    } finally {
      proxy.resume();
    }

    assertUncertain(stalled, batch);
    assertThat(finals)
        .allSatisfy(
            last -> {
              assertThat(last.isPublished()).isFalse();
              assertThat(last.failure().isRetryable()).isTrue();
              assertThat(last.failure()).hasMessageContaining("may or may not have the message");
            });
  }

  private ServiceBusEventPublisher publisher(Duration tryTimeout) {
    ServiceBusEventPublisher publisher =
        ServiceBusEventPublisher.create(
            ServiceBusPublisherOptions.builder()
                .connectionString(LocalServiceBus.connectionString(proxy.port()))
                .entity(queue)
                .tryTimeout(tryTimeout)
                .build());
    toClose.add(publisher);
    return publisher;
  }

  /** One message through, so that the connection and the send link exist before the stall. */
  private OutboxMessage warmUp(ServiceBusEventPublisher publisher) {
    OutboxMessage message = TestMessages.message(queue, "warm-up");
    assertThat(publisher.publish(List.of(message), TIMEOUT))
        .allSatisfy(r -> assertThat(r.isPublished()).as("%s", r.failure()).isTrue());
    return message;
  }

  /** Publishes with {@link #PUBLISH_TIMEOUT} and checks that the call keeps to it. */
  private static List<PublishResult> timedPublish(
      ServiceBusEventPublisher publisher, List<OutboxMessage> batch) {
    long start = System.nanoTime();
    List<PublishResult> results = publisher.publish(batch, PUBLISH_TIMEOUT);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("publish returns within its timeout")
        .isLessThan(PUBLISH_TIMEOUT.plusSeconds(1));
    return results;
  }

  /** Sent, never answered in time: uncertain, not a plain failure. */
  private void assertUncertain(List<PublishResult> results, List<OutboxMessage> batch) {
    assertThat(results)
        .extracting(PublishResult::messageId)
        .containsExactlyElementsOf(batch.stream().map(OutboxMessage::id).toList());
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.isPublished()).isFalse();
              assertThat(r.isUncertain()).as("uncertain: %s", r.failure()).isTrue();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.destination()).isEqualTo(queue);
            });
  }

  private static PublishResult finalOf(PublishResult result) throws Exception {
    return result.finalOutcome().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
