package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.IncomingMessage;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.testkit.ReceivedMessage;
import java.time.Duration;
import java.util.List;

/**
 * The contract with one topic per aggregate type and two subscriptions: each message reaches both,
 * with the same properties.
 */
class ServiceBusTopicContractIT extends AbstractServiceBusContractIT {

  private static final String FIRST = "billing";
  private static final String SECOND = "shipping";

  @Override
  protected void prepareDestination(String aggregateType) {
    bus.createTopic(aggregateType, FIRST, SECOND);
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout) {
    List<ReceivedMessage> first = receiveFrom(aggregateType, FIRST, count, timeout);
    List<ReceivedMessage> second = receiveFrom(aggregateType, SECOND, count, timeout);
    assertThat(second)
        .as("the second subscription gets the same messages")
        .usingRecursiveFieldByFieldElementComparatorIgnoringFields("destination")
        .isEqualTo(first);
    return first;
  }

  /**
   * Each message as the SDK's receiver client of each subscription got it, read by {@link
   * ServiceBusIncoming}: both read alike.
   */
  @Override
  protected List<IncomingMessage> receiveIncoming(
      String aggregateType, int count, Duration timeout) {
    List<IncomingMessage> first = incomingFrom(aggregateType, FIRST, count, timeout);
    List<IncomingMessage> second = incomingFrom(aggregateType, SECOND, count, timeout);
    assertThat(second)
        .as("the second subscription gets the same messages")
        .map(IncomingMessage::toString)
        .isEqualTo(first.stream().map(IncomingMessage::toString).toList());
    return first;
  }

  private List<IncomingMessage> incomingFrom(
      String topic, String subscription, int count, Duration timeout) {
    return receivers.receive(null, topic, subscription, count, timeout).stream()
        .map(ServiceBusIncoming::of)
        .toList();
  }

  private List<ReceivedMessage> receiveFrom(
      String topic, String subscription, int count, Duration timeout) {
    String path = LocalServiceBus.subscriptionPath(topic, subscription);
    return receivers.receive(null, topic, subscription, count, timeout).stream()
        .map(m -> SdkReceivers.normalize(path, m))
        .toList();
  }
}
