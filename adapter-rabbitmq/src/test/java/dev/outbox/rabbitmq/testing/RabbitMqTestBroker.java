package dev.outbox.rabbitmq.testing;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Delivery;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.ReceivedMessage;
import dev.outbox.testkit.RequiredServer;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The local RabbitMQ of the tests (127.0.0.1:5672, guest/guest): an admin connection that declares
 * and deletes test exchanges and queues, and consumers that hand over what arrives. Everything a
 * test declares has a random name and is deleted by the test.
 */
public final class RabbitMqTestBroker implements AutoCloseable {

  /** The broker's host. */
  public static final String HOST = "127.0.0.1";

  /** The broker's port. */
  public static final int PORT = 5672;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Connection connection;
  private final Channel admin;

  private RabbitMqTestBroker() throws IOException, TimeoutException {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(HOST);
    factory.setPort(PORT);
    factory.setNetworkRecoveryInterval(500);
    this.connection = factory.newConnection("outbox-test-admin");
    this.admin = connection.createChannel();
  }

  /**
   * Skips the calling test when RabbitMQ is not running (fails it when {@code CI=true}), then
   * connects.
   */
  public static RabbitMqTestBroker connect() throws IOException, TimeoutException {
    RequiredServer.assumeReachable(
        "RabbitMQ",
        HOST,
        PORT,
        "rabbitmq-server -detached (user guest/guest), or 'rabbitmqctl start_app' if the node runs");
    return new RabbitMqTestBroker();
  }

  /** A fresh name for a test's exchange or queue. */
  public static String name(String purpose) {
    byte[] suffix = new byte[4];
    RANDOM.nextBytes(suffix);
    return "outbox-it-" + purpose + "-" + HexFormat.of().formatHex(suffix);
  }

  /** Options of a publisher to this broker and exchange, routing by aggregate and event type. */
  public static RabbitMqPublisherOptions.Builder options(String exchange) {
    return RabbitMqPublisherOptions.builder()
        .host(HOST)
        .port(PORT)
        .exchange(exchange)
        .routingKeyTemplate("{aggregateType}.{eventType}")
        .connectionName(name("publisher"))
        .recoveryInterval(java.time.Duration.ofMillis(500));
  }

  /** Declares a topic exchange. */
  public void declareExchange(String exchange, boolean durable) throws IOException {
    admin.exchangeDeclare(exchange, "topic", durable);
  }

  /** Declares a queue bound to the exchange for a routing pattern. */
  public void declareQueue(String queue, boolean durable, String exchange, String pattern)
      throws IOException {
    admin.queueDeclare(queue, durable, false, false, null);
    admin.queueBind(queue, exchange, pattern);
  }

  /** Deletes exchanges and queues, ignoring those already gone. */
  public void delete(String exchange, String... queues) {
    for (String queue : queues) {
      run(channel -> channel.queueDelete(queue));
    }
    if (exchange != null) {
      run(channel -> channel.exchangeDelete(exchange));
    }
  }

  /**
   * Messages ready in a queue (not counting those delivered and not yet acknowledged).
   *
   * @return the count, or -1 when the queue does not exist or the broker did not answer
   */
  public long messageCount(String queue) {
    try (Channel channel = connection.createChannel()) {
      return channel.queueDeclarePassive(queue).getMessageCount();
    } catch (IOException | TimeoutException | RuntimeException e) {
      return -1;
    }
  }

  /** Whether an exchange exists. */
  public boolean exchangeExists(String exchange) {
    return run(channel -> channel.exchangeDeclarePassive(exchange));
  }

  /** Declares an exchange and reports whether the broker accepted it (same type and durability). */
  public boolean redeclareAccepted(String exchange, String type, boolean durable) {
    return run(channel -> channel.exchangeDeclare(exchange, type, durable));
  }

  /**
   * Consumes a queue on a channel of its own, acknowledging each message after the handler ran.
   *
   * @return the channel, to close when done
   */
  public Channel consume(String queue, Consumer<Delivered> handler) throws IOException {
    Channel channel = connection.createChannel();
    channel.basicQos(500);
    DeliverCallback callback =
        (tag, delivery) -> {
          handler.accept(new Delivered(queue, delivery));
          try {
            channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
          } catch (AlreadyClosedException e) {
            // the test is closing this consumer: the broker redelivers nothing to a deleted queue
          }
        };
    channel.basicConsume(queue, false, callback, tag -> {});
    return channel;
  }

  @Override
  public void close() throws IOException {
    connection.close();
  }

  private interface ChannelAction {
    void run(Channel channel) throws IOException;
  }

  /** Runs on a short-lived channel, since a failed declare closes its channel. */
  private boolean run(ChannelAction action) {
    try (Channel channel = connection.createChannel()) {
      action.run(channel);
      return true;
    } catch (IOException | TimeoutException | RuntimeException e) {
      return false;
    }
  }

  /**
   * A message as it arrived.
   *
   * @param queue the queue it came from
   * @param delivery the client's delivery, as a consumer's {@code DeliverCallback} got it
   */
  public record Delivered(String queue, Delivery delivery) {

    /** Its AMQP properties. */
    public AMQP.BasicProperties properties() {
      return delivery.getProperties();
    }

    /** Its body. */
    public byte[] body() {
      return delivery.getBody();
    }

    /** The headers as strings. */
    public Map<String, String> headers() {
      Map<String, String> headers = new LinkedHashMap<>();
      if (properties().getHeaders() != null) {
        properties()
            .getHeaders()
            .forEach((name, value) -> headers.put(name, String.valueOf(value)));
      }
      return headers;
    }

    /** The normal form of the contract: the aggregate id header is the key. */
    public ReceivedMessage normalized() {
      Map<String, String> headers = headers();
      return new ReceivedMessage(
          queue,
          properties().getMessageId(),
          headers.get(WireHeaders.AGGREGATE_ID),
          headers,
          body(),
          properties().getContentType());
    }
  }
}
