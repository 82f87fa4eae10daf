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
import java.util.stream.Collectors;

/** The assertions and conversions the contract's tests share. */
final class ContractChecks {

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
