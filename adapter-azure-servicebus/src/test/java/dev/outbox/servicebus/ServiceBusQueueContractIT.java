package dev.outbox.servicebus;

import dev.outbox.IncomingMessage;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.testkit.ReceivedMessage;
import java.time.Duration;
import java.util.List;

/** The contract with one queue per aggregate type. */
class ServiceBusQueueContractIT extends AbstractServiceBusContractIT {

  @Override
  protected void prepareDestination(String aggregateType) {
    bus.createQueue(aggregateType);
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout) {
    return receivers.receive(aggregateType, null, null, count, timeout).stream()
        .map(m -> SdkReceivers.normalize(aggregateType, m))
        .toList();
  }

  /** Each message as the SDK's receiver client got it, read by {@link ServiceBusIncoming}. */
  @Override
  protected List<IncomingMessage> receiveIncoming(
      String aggregateType, int count, Duration timeout) {
    return receivers.receive(aggregateType, null, null, count, timeout).stream()
        .map(ServiceBusIncoming::of)
        .toList();
  }
}
