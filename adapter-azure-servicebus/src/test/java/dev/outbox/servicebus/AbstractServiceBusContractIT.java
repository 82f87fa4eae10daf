package dev.outbox.servicebus;

import dev.outbox.OutboxMessage;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.servicebus.testing.SdkReceivers;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's contract against the local AMQP 1.0 broker with the real SDK, routing each message to
 * the entity named by its aggregate type. The broker is taken away through a {@link TcpProxy} in
 * front of its AMQP port, and refuses a connection string with a wrong key as Service Bus does (its
 * {@code $cbs} node answers 401).
 */
abstract class AbstractServiceBusContractIT extends EventPublisherContract {

  LocalServiceBus bus;
  SdkReceivers receivers;
  private final List<TcpProxy> proxies = new ArrayList<>();

  @BeforeAll
  void startBroker() {
    bus = LocalServiceBus.start(LocalServiceBus.STANDARD_MAX_MESSAGE_SIZE);
    receivers = new SdkReceivers(bus.connectionString());
  }

  @AfterAll
  void stopBroker() {
    proxies.forEach(TcpProxy::close);
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

  @Override
  protected Behind createPublisherBehindProxy() throws Exception {
    TcpProxy proxy = new TcpProxy("127.0.0.1", bus.port());
    proxies.add(proxy);
    return new Behind(
        ServiceBusEventPublisher.create(options(LocalServiceBus.connectionString(proxy.port()))),
        proxy);
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() {
    return ServiceBusEventPublisher.create(
        options(LocalServiceBus.connectionString(bus.port(), "not-the-namespace-key")));
  }
}
