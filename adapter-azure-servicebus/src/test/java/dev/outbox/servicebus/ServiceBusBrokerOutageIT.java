package dev.outbox.servicebus;

import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.testing.e2e.BrokerOutageContract;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's {@link BrokerOutageContract} on the local AMQP 1.0 broker with the real SDK, one
 * for the class, taken away by a {@link TcpProxy} in front of its AMQP port; the refused
 * credentials are a connection string with a wrong key (its {@code $cbs} node answers 401), and the
 * poison message is for an entity that does not exist. Every prepared aggregate type gets a queue
 * of its own. What arrives is read from the broker's store, not by a receiver, which could lose
 * what it had prefetched when the broker goes away (see {@link LocalServiceBus#storedMessages}).
 */
class ServiceBusBrokerOutageIT extends BrokerOutageContract {

  private LocalServiceBus bus;
  private TcpProxy proxy;

  @BeforeAll
  void startBroker() throws Exception {
    bus = LocalServiceBus.start(LocalServiceBus.STANDARD_MAX_MESSAGE_SIZE);
    proxy = new TcpProxy("127.0.0.1", bus.port());
  }

  @AfterAll
  void stopBroker() {
    if (proxy != null) {
      proxy.close();
    }
    if (bus != null) {
      bus.close();
    }
  }

  @Override
  protected String databaseName() {
    return "servicebus_outage";
  }

  @Override
  protected String brokerName() {
    return "Service Bus";
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(publisher(LocalServiceBus.connectionString(proxy.port())), proxy);
  }

  @Override
  protected EventPublisher createPublisher(String key) {
    return publisher(LocalServiceBus.connectionString(bus.port(), key));
  }

  @Override
  protected String password() {
    return LocalServiceBus.KEY;
  }

  @Override
  protected String refusedCredentialsOf() {
    return "key name '" + LocalServiceBus.KEY_NAME + "'";
  }

  @Override
  protected void prepareDestination(String aggregateType) {
    bus.createQueue(aggregateType);
  }

  @Override
  protected AutoCloseable receive(String aggregateType, DeliveryCheck check) {
    return new StoreReader(aggregateType, check);
  }

  /** A type whose entity does not exist: its messages are unroutable. */
  @Override
  protected Poison preparePoison() {
    return new Poison(
        TestMessages.aggregateType("missing"), MAX_ATTEMPTS, List.of("does not exist"));
  }

  /**
   * Routes by aggregate type. The try timeout is below the publish timeout, as the README asks: the
   * SDK retries a refused connection only after closing the last attempt, which takes half the try
   * timeout (at most 4 s), so a longer one than the publish timeout keeps the probe in flight at
   * the broker's return waiting (measured 1.6 to 1.9 s with the default 10 s, against 0.4 to 0.6
   * s).
   */
  private static ServiceBusEventPublisher publisher(String connectionString) {
    return ServiceBusEventPublisher.create(
        ServiceBusPublisherOptions.builder()
            .connectionString(connectionString)
            .entityResolver(OutboxMessage::aggregateType)
            .tryTimeout(Duration.ofSeconds(1))
            .build());
  }

  /** Reads a queue's store every 20 ms and records the messages it had not seen, in queue order. */
  private final class StoreReader implements AutoCloseable {
    private final String queue;
    private final DeliveryCheck check;
    private final Thread thread;
    private volatile boolean running = true;

    StoreReader(String queue, DeliveryCheck check) {
      this.queue = queue;
      this.check = check;
      this.thread = new Thread(this::run, "store-reader-" + queue);
      thread.setDaemon(true);
      thread.start();
    }

    private void run() {
      int seen = 0;
      while (running) {
        List<LocalServiceBus.StoredMessage> stored = bus.storedMessages(queue);
        for (LocalServiceBus.StoredMessage message : stored.subList(seen, stored.size())) {
          check.record(
              message.partitionKey(),
              E2eAggregate.Stepped.parse(message.body()).sequence(),
              message.messageId());
        }
        seen = stored.size();
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join(5_000);
    }
  }
}
