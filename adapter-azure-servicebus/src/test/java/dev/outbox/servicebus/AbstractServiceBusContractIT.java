package dev.outbox.servicebus;

import dev.outbox.OutboxMessage;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's contract against the local AMQP 1.0 broker with the real SDK, routing each message to
 * the entity named by its aggregate type.
 */
abstract class AbstractServiceBusContractIT extends EventPublisherContract {

  LocalServiceBus bus;
  SdkReceivers receivers;

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

  static ServiceBusPublisherOptions options(String connectionString) {
    return ServiceBusPublisherOptions.builder()
        .connectionString(connectionString)
        .entityResolver(OutboxMessage::aggregateType)
        .tryTimeout(Duration.ofSeconds(5))
        .build();
  }

  @Override
  protected EventPublisher createPublisher() {
    return ServiceBusEventPublisher.create(options(bus.connectionString()));
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return ServiceBusEventPublisher.create(
        options(LocalServiceBus.connectionString(closedLocalPort())));
  }
}
