package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import dev.outbox.hibernate.testing.e2e.BrokerOutageContract;
import dev.outbox.rabbitmq.testing.BystanderPublisher;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.StepRecorder;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The test kit's {@link BrokerOutageContract} on the shared RabbitMQ: the broker is taken away by a
 * {@link TcpProxy} of the test's own (the shared broker is never stopped), the refused credentials
 * are those of {@code guest} with a wrong password, and the poison message is unroutable (no queue
 * is bound to its aggregate type, so it comes back with {@code basic.return}). Each test declares
 * its own exchange (not durable) and one queue per prepared aggregate type, bound with {@code
 * <aggregateType>.#}, and deletes them. A {@link BystanderPublisher}, another client of the same
 * broker, publishes all along on a connection of its own: each test ends by checking that the
 * outages it made never reached the broker itself.
 */
class RabbitMqBrokerOutageIT extends BrokerOutageContract {

  private RabbitMqTestBroker broker;
  private TcpProxy proxy;
  private BystanderPublisher bystander;
  private String exchange;

  /** The queue of each prepared aggregate type. */
  private final Map<String, String> queues = new LinkedHashMap<>();

  @BeforeAll
  void connect() throws Exception {
    broker = RabbitMqTestBroker.connect();
    proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
    bystander = BystanderPublisher.start();
  }

  @AfterAll
  void disconnect() throws Exception {
    if (bystander != null) {
      bystander.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void freshExchange() throws Exception {
    exchange = RabbitMqTestBroker.name("outage");
    broker.declareExchange(exchange, false);
  }

  @AfterEach
  void deleteTopology() {
    broker.delete(exchange, queues.values().toArray(String[]::new));
    queues.clear();
  }

  /** The test's outages were its proxy's: the other client of the broker never noticed one. */
  @AfterEach
  void theBrokerItselfServedTheBystanderThroughout() throws Exception {
    assertThat(bystander.interruptions()).as("the bystander's interruptions").isEmpty();
    long confirmed = bystander.confirmed();
    assertThat(confirmed).as("messages the bystander published").isPositive();
    assertThat(bystander.queued())
        .as("the bystander's messages the broker holds")
        .isGreaterThanOrEqualTo(confirmed);
  }

  @Override
  protected String databaseName() {
    return "rabbitmq_outage";
  }

  @Override
  protected String brokerName() {
    return "RabbitMQ";
  }

  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(publisher(proxy.port(), password()), proxy);
  }

  @Override
  protected EventPublisher createPublisher(String password) {
    return publisher(RabbitMqTestBroker.PORT, password);
  }

  @Override
  protected String password() {
    return "guest";
  }

  @Override
  protected String refusedCredentialsOf() {
    return "user 'guest'";
  }

  @Override
  protected void prepareDestination(String aggregateType) throws Exception {
    String queue = RabbitMqTestBroker.name(aggregateType);
    queues.put(aggregateType, queue);
    broker.declareQueue(queue, false, exchange, aggregateType + ".#");
  }

  @Override
  protected AutoCloseable receive(String aggregateType, DeliveryCheck check) throws Exception {
    StepRecorder recorder = new StepRecorder();
    recorder.attach(check);
    Channel channel = broker.consume(queues.get(aggregateType), recorder::record);
    return channel::close;
  }

  /** A type no queue is bound to: its messages come back with basic.return. */
  @Override
  protected Poison preparePoison() {
    return new Poison(
        TestMessages.aggregateType("unroutable"), MAX_ATTEMPTS, List.of("unroutable", "NO_ROUTE"));
  }

  /** Routes by aggregate type; recovers a lost connection every 500 ms. */
  private RabbitMqEventPublisher publisher(int port, String password) {
    return new RabbitMqEventPublisher(
        RabbitMqTestBroker.options(exchange)
            .port(port)
            .username("guest")
            .password(password)
            .connectionTimeout(Duration.ofSeconds(2))
            .build());
  }
}
