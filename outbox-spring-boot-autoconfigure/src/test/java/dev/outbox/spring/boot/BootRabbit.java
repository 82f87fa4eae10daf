package dev.outbox.spring.boot;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.RequiredServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The local RabbitMQ of a test class: an exchange of its own, bound to a server-named queue, and
 * what arrived there, by aggregate. Closing deletes the exchange.
 */
final class BootRabbit implements AutoCloseable {

  final String exchange;
  private final Connection connection;
  private final Channel channel;
  private final String queue;

  private BootRabbit(String exchange, Connection connection, Channel channel, String queue) {
    this.exchange = exchange;
    this.connection = connection;
    this.channel = channel;
    this.queue = queue;
  }

  /** Skips (or, with {@code CI=true}, fails) the test class when RabbitMQ is not reachable. */
  static void assumeReachable() {
    RequiredServer.assumeReachable(
        "RabbitMQ",
        "127.0.0.1",
        5672,
        "rabbitmq-server (guest/guest), e.g. 'start-stop-daemon --start --oknodo --background"
            + " --exec /usr/sbin/rabbitmq-server'");
  }

  /** A new exchange, {@code prefix} and a random suffix, with a queue bound to every key. */
  static BootRabbit open(String prefix) throws Exception {
    assumeReachable();
    String exchange = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    Connection connection = factory.newConnection(prefix);
    Channel channel = connection.createChannel();
    channel.exchangeDeclare(exchange, "topic", true);
    String queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, exchange, "#");
    return new BootRabbit(exchange, connection, channel, queue);
  }

  /** The properties that point the outbox of a test application at this exchange. */
  Map<String, Object> outboxProperties() {
    Map<String, Object> properties = BootTables.database();
    properties.put("outbox.broker", "rabbitmq");
    properties.put("outbox.rabbitmq.host", "127.0.0.1");
    properties.put("outbox.rabbitmq.exchange", exchange);
    properties.put("outbox.poll-interval", "100ms");
    return properties;
  }

  /**
   * Takes up to {@code count} messages, waiting at most a minute for them.
   *
   * @return the {@code "step"} of each message's JSON payload, by {@code type/id} of its aggregate
   *     in order of arrival, and the distinct message ids
   */
  Received receive(int count) throws Exception {
    Map<String, List<Long>> steps = new LinkedHashMap<>();
    Set<String> messageIds = new HashSet<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    int received = 0;
    while (received < count && System.nanoTime() < deadline) {
      GetResponse response = channel.basicGet(queue, true);
      if (response == null) {
        Thread.sleep(50);
        continue;
      }
      received++;
      messageIds.add(response.getProps().getMessageId());
      Map<String, Object> headers = response.getProps().getHeaders();
      String aggregate =
          headers.get(WireHeaders.AGGREGATE_TYPE) + "/" + headers.get(WireHeaders.AGGREGATE_ID);
      steps
          .computeIfAbsent(aggregate, k -> new ArrayList<>())
          .add(step(new String(response.getBody(), StandardCharsets.UTF_8)));
    }
    return new Received(received, steps, messageIds);
  }

  /** Whether nothing more arrives within half a second. */
  boolean quiet() throws Exception {
    Thread.sleep(500);
    return channel.basicGet(queue, true) == null;
  }

  /** The {@code "step"} field of an event's JSON. */
  static long step(String json) {
    return Long.parseLong(json.replaceAll(".*\"step\":(\\d+).*", "$1"));
  }

  @Override
  public void close() throws Exception {
    channel.exchangeDelete(exchange);
    connection.close();
  }

  /**
   * What {@link #receive} took.
   *
   * @param count the messages taken
   * @param steps the steps by {@code type/id}
   * @param messageIds the distinct message ids
   */
  record Received(int count, Map<String, List<Long>> steps, Set<String> messageIds) {}
}
