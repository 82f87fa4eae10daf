package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/** The assertions and conversions the contract's tests share. */
final class ContractChecks {

  /** How long a broker-fault check waits for the final outcome of a send in doubt. */
  private static final Duration FINAL_OUTCOME_WAIT = Duration.ofSeconds(5);

  private ContractChecks() {}

  static List<PublishResult> publish(
      EventPublisher publisher, List<OutboxMessage> messages, Duration timeout) {
    List<PublishResult> results = null;
    try {
      results = publisher.publish(List.copyOf(messages), timeout);
    } catch (RuntimeException e) {
      fail("publish must report failures in its results, never throw, but threw " + e, e);
    }
    assertThat(results).as("one result per message").hasSize(messages.size());
    return results;
  }

  static void assertFailed(PublishResult result, OutboxMessage message) {
    assertThat(result.messageId()).isEqualTo(message.id());
    assertThat(result.isPublished()).as("unroutable %s reported as published", message).isFalse();
    assertThat(result.failure()).hasMessageContaining(message.id().toString());
  }

  /**
   * A failure of the broker, not of the message: a broker fault, or a send still in doubt when the
   * call returned (every send of the batch timing out is an outage to the processor) whose final
   * outcome, if it comes within a few seconds, is not blamed on the message.
   */
  static void assertBrokerFault(PublishResult result) {
    assertThat(result.isPublished()).as("published with no broker: %s", result).isFalse();
    if (result.isUncertain()) {
      PublishResult last;
      try {
        last =
            result
                .finalOutcome()
                .toCompletableFuture()
                .get(FINAL_OUTCOME_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return; // still in doubt: the processor holds it, as it holds a broker fault
      } catch (Exception e) {
        throw new AssertionError("the final outcome of " + result.messageId() + " failed", e);
      }
      if (last.isPublished()) {
        return;
      }
      result = last;
    }
    assertThat(result.failure().isBrokerFault())
        .as("a failure of the broker blamed on the message: %s", result.failure())
        .isTrue();
    assertThat(result.failure().isRetryable()).as("a broker fault is retryable").isTrue();
  }

  /** Publishes until the broker accepts the whole batch or {@code within} runs out. */
  static boolean publishUntilAccepted(
      EventPublisher publisher, List<OutboxMessage> batch, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      List<PublishResult> results = publish(publisher, batch, within);
      if (results.stream().allMatch(PublishResult::isPublished)) {
        return true;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  static List<UUID> ids(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::id).toList();
  }

  static List<String> strings(List<UUID> values) {
    return values.stream().map(Object::toString).toList();
  }

  static Map<String, List<String>> idsByAggregate(List<OutboxMessage> messages) {
    return messages.stream()
        .collect(
            Collectors.groupingBy(
                OutboxMessage::aggregateId,
                Collectors.mapping(m -> m.id().toString(), Collectors.toList())));
  }

  static Map<String, List<String>> idsByKey(List<ReceivedMessage> messages) {
    return messages.stream()
        .collect(
            Collectors.groupingBy(
                ReceivedMessage::key,
                Collectors.mapping(ReceivedMessage::messageId, Collectors.toList())));
  }
}
