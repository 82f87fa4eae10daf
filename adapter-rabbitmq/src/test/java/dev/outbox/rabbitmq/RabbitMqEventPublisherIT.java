package dev.outbox.rabbitmq;

import dev.outbox.IncomingMessage;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker.Delivered;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The publisher contract on the real RabbitMQ. Each test gets its own topic exchange (also declared
 * by the publisher, which exercises the topology option) and one queue per prepared aggregate type,
 * bound with {@code <aggregateType>.#}; all are deleted after the test. An aggregate type never
 * prepared has no binding, so its messages come back with {@code basic.return}. The outage tests
 * reach the shared broker through a {@link TcpProxy} of their own, and the refused credentials are
 * those of {@code guest} with a wrong password: the broker itself is never touched.
 */
class RabbitMqEventPublisherIT extends EventPublisherContract {

  private RabbitMqTestBroker broker;
  private String exchange;
  private final List<String> queues = new ArrayList<>();
  private final Map<String, BlockingQueue<Delivered>> inboxes = new ConcurrentHashMap<>();
  private final List<TcpProxy> proxies = new ArrayList<>();

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqTestBroker.connect();
  }

  @AfterAll
  void disconnect() throws Exception {
    proxies.forEach(TcpProxy::close);
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void freshExchange() throws Exception {
    exchange = RabbitMqTestBroker.name("contract");
    broker.declareExchange(exchange, false);
  }

  @AfterEach
  void deleteTopology() {
    broker.delete(exchange, queues.toArray(String[]::new));
    queues.clear();
    inboxes.clear();
  }

  @Override
  protected EventPublisher createPublisher() {
    return new RabbitMqEventPublisher(
        RabbitMqTestBroker.options(exchange)
            .declareExchange(true)
            .exchangeType("topic")
            .exchangeDurable(false)
            .build());
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return new RabbitMqEventPublisher(
        RabbitMqTestBroker.options(exchange)
            .port(closedLocalPort())
            .connectionTimeout(Duration.ofSeconds(2))
            .build());
  }

  @Override
  protected Behind createPublisherBehindProxy() throws Exception {
    TcpProxy proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
    proxies.add(proxy);
    RabbitMqEventPublisher publisher =
        new RabbitMqEventPublisher(
            RabbitMqTestBroker.options(exchange)
                .port(proxy.port())
                .declareExchange(true)
                .exchangeType("topic")
                .exchangeDurable(false)
                .connectionTimeout(Duration.ofSeconds(2))
                .build());
    return new Behind(publisher, proxy);
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() {
    return new RabbitMqEventPublisher(
        RabbitMqTestBroker.options(exchange).username("guest").password("not-guest").build());
  }

  @Override
  protected void prepareDestination(String aggregateType) throws Exception {
    String queue = RabbitMqTestBroker.name(aggregateType);
    queues.add(queue);
    broker.declareQueue(queue, false, exchange, aggregateType + ".#");
    BlockingQueue<Delivered> inbox = new LinkedBlockingQueue<>();
    inboxes.put(aggregateType, inbox);
    broker.consume(queue, inbox::add);
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout)
      throws Exception {
    return delivered(aggregateType, count, timeout).stream().map(Delivered::normalized).toList();
  }

  /**
   * Each delivery as the consumer's {@code DeliverCallback} got it, read by {@link
   * RabbitMqIncoming}.
   */
  @Override
  protected List<IncomingMessage> receiveIncoming(String aggregateType, int count, Duration timeout)
      throws Exception {
    return delivered(aggregateType, count, timeout).stream()
        .map(d -> RabbitMqIncoming.of(d.delivery()))
        .toList();
  }

  private List<Delivered> delivered(String aggregateType, int count, Duration timeout)
      throws InterruptedException {
    BlockingQueue<Delivered> inbox = inboxes.get(aggregateType);
    List<Delivered> received = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (received.size() < count) {
      Delivered next = inbox.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (next == null) {
        break;
      }
      received.add(next);
    }
    return received;
  }
}
