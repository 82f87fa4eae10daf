package dev.outbox.samples.brokers;

import com.google.inject.Module;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import dev.outbox.rabbitmq.RabbitMqOutboxModule;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.samples.Redaction;
import dev.outbox.samples.SetupException;
import dev.outbox.spi.WireHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.function.Consumer;

/**
 * RabbitMQ: a topic exchange {@code outbox-sample-<run>} and a queue bound to it with {@code #},
 * both declared here and deleted at the end. The adapter publishes with routing key = event type
 * and {@code mandatory}; the consumer reads the queue with auto-ack.
 */
final class RabbitMqBroker implements Broker {

  private final String uri;
  private final String exchange;
  private final String queue;
  private final Connection connection;
  private final Channel channel;

  private RabbitMqBroker(String uri, String runId, Connection connection, Channel channel) {
    this.uri = uri;
    this.exchange = "outbox-sample-" + runId;
    this.queue = exchange + ".orders";
    this.connection = connection;
    this.channel = channel;
  }

  static RabbitMqBroker open(String uri, String runId) {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      RabbitMqPublisherOptions.builder().uri(uri);
    } catch (Exception e) {
      throw new SetupException(
          "--amqp-uri must look like amqp://user:password@host:5672/vhost, but was '"
              + Redaction.redact(uri)
              + "': "
              + SetupException.describe(e));
    }
    factory.setConnectionTimeout(5_000);
    factory.setAutomaticRecoveryEnabled(false);
    Connection connection;
    try {
      connection = factory.newConnection("outbox-sample-consumer");
    } catch (PossibleAuthenticationFailureException e) { // AuthenticationFailureException too
      throw new SetupException(
          "RabbitMQ at "
              + Redaction.redact(uri)
              + " refused the credentials of user '"
              + factory.getUsername()
              + "' ("
              + SetupException.describe(e)
              + "): pass the user and password of an account in --amqp-uri");
    } catch (Exception e) {
      throw new SetupException(
          "RabbitMQ is not reachable at "
              + Redaction.redact(uri)
              + " ("
              + SetupException.describe(e)
              + "): start it (rabbitmq-server -detached) or pass --amqp-uri");
    }
    try {
      RabbitMqBroker broker =
          new RabbitMqBroker(uri, runId, connection, connection.createChannel());
      broker.declare();
      return broker;
    } catch (IOException e) {
      closeQuietly(connection);
      throw new SetupException(
          "RabbitMQ refused to declare the demo's exchange and queue: "
              + SetupException.describe(e));
    }
  }

  private void declare() throws IOException {
    channel.exchangeDeclare(exchange, "topic", false, false, null);
    channel.queueDeclare(queue, false, false, false, null);
    channel.queueBind(queue, exchange, "#");
    channel.basicQos(500);
  }

  @Override
  public String description() {
    return "RabbitMQ exchange " + exchange + " -> queue " + queue + " at " + Redaction.redact(uri);
  }

  @Override
  public Module publisherModule() {
    return new RabbitMqOutboxModule(
        RabbitMqPublisherOptions.builder()
            .uri(uri)
            .exchange(exchange)
            .connectionName("outbox-sample-publisher")
            .build());
  }

  @Override
  public void startConsumer(Consumer<ReceivedEvent> sink) {
    try {
      channel.basicConsume(
          queue, true, (tag, delivery) -> sink.accept(received(delivery)), tag -> {});
    } catch (IOException e) {
      throw new SetupException("Could not consume queue " + queue + ": " + e.getMessage());
    }
  }

  private static ReceivedEvent received(Delivery delivery) {
    AMQP.BasicProperties properties = delivery.getProperties();
    Map<String, Object> headers =
        properties.getHeaders() == null ? Map.of() : properties.getHeaders();
    return new ReceivedEvent(
        properties.getMessageId(),
        string(headers.get(WireHeaders.AGGREGATE_ID)),
        properties.getType(),
        Brokers.instant(headers.get(WireHeaders.OCCURRED_AT)),
        new String(delivery.getBody(), StandardCharsets.UTF_8),
        Instant.now());
  }

  private static String string(Object value) {
    return value == null ? null : value.toString();
  }

  @Override
  public void close() {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
    } catch (Exception e) {
      System.err.println(
          "note: could not delete " + queue + "/" + exchange + ": " + e.getMessage());
    }
    closeQuietly(connection);
  }

  private static void closeQuietly(Connection connection) {
    try {
      connection.close(2_000);
    } catch (Exception e) {
      // already closed
    }
  }
}
