package dev.outbox.samples.payments;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.spi.WireHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The consumer's side of RabbitMQ: a topic exchange {@code <name>} and a queue {@code
 * <name>.payments} bound to it for {@code payment.*} and {@code merchant.*}, both declared here and
 * deleted by {@link #close()}. The adapter publishes with routing key = event type and {@code
 * mandatory}, so an event type bound to no queue is refused by the broker ({@code unroutable}) and
 * retried until it is dead-lettered. The consumer reads the queue with RabbitMQ's own client.
 */
public final class PaymentEventsQueue implements AutoCloseable {

  /** The routing patterns the queue is bound with. */
  public static final String[] BINDINGS = {"payment.*", "merchant.*"};

  private final String uri;
  private final String exchange;
  private final String queue;
  private final Connection connection;
  private final Channel channel;

  private PaymentEventsQueue(String uri, String exchange, Connection connection, Channel channel) {
    this.uri = uri;
    this.exchange = exchange;
    this.queue = exchange + ".payments";
    this.connection = connection;
    this.channel = channel;
  }

  /**
   * Connects and declares the exchange and the queue.
   *
   * @param uri the AMQP URI, for example {@code amqp://guest:guest@127.0.0.1:5672/%2F}
   * @param exchange the exchange's name, unique to the run
   * @return the queue, not consumed yet
   * @throws SetupException when the URI is malformed, RabbitMQ is not reachable or refuses
   */
  public static PaymentEventsQueue open(String uri, String exchange) {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
      RabbitMqPublisherOptions.builder().uri(uri);
    } catch (Exception e) {
      throw new SetupException(
          "--amqp-uri must look like amqp://user:password@host:5672/vhost, but was '"
              + SetupException.redact(uri)
              + "': "
              + SetupException.describe(e));
    }
    factory.setConnectionTimeout(5_000);
    factory.setAutomaticRecoveryEnabled(false);
    Connection connection;
    try {
      connection = factory.newConnection("jdbc-payments-consumer");
    } catch (PossibleAuthenticationFailureException e) {
      throw new SetupException(
          "RabbitMQ at "
              + SetupException.redact(uri)
              + " refused the credentials of user '"
              + factory.getUsername()
              + "': pass the user and password of an account in --amqp-uri");
    } catch (Exception e) {
      throw new SetupException(
          "RabbitMQ is not reachable at "
              + SetupException.redact(uri)
              + " ("
              + SetupException.describe(e)
              + "): start it (rabbitmq-server -detached) or pass --amqp-uri");
    }
    try {
      PaymentEventsQueue events =
          new PaymentEventsQueue(uri, exchange, connection, connection.createChannel());
      events.declare();
      return events;
    } catch (IOException e) {
      closeQuietly(connection);
      throw new SetupException(
          "RabbitMQ refused to declare the exchange "
              + exchange
              + ": "
              + SetupException.describe(e));
    }
  }

  private void declare() throws IOException {
    channel.exchangeDeclare(exchange, "topic", false, false, null);
    channel.queueDeclare(queue, false, false, false, null);
    for (String binding : BINDINGS) {
      channel.queueBind(queue, exchange, binding);
    }
    channel.basicQos(500);
  }

  /**
   * The options of the outbox's publisher to this exchange: routing key = event type (the default),
   * publisher confirms, mandatory.
   *
   * @return the options
   */
  public RabbitMqPublisherOptions publisherOptions() {
    return RabbitMqPublisherOptions.builder()
        .uri(uri)
        .exchange(exchange)
        .connectionName("jdbc-payments-publisher")
        .build();
  }

  /**
   * Where the events go, for the demo's output.
   *
   * @return exchange, queue and broker, without the password
   */
  public String description() {
    return "RabbitMQ exchange "
        + exchange
        + " -> queue "
        + queue
        + " at "
        + SetupException.redact(uri);
  }

  /**
   * Starts consuming with auto-ack; each message goes to the sink on the client's thread.
   *
   * @param sink what receives the events
   * @throws IOException when RabbitMQ refuses the consumer
   */
  public void consume(Consumer<ReceivedEvent> sink) throws IOException {
    channel.basicConsume(
        queue, true, (tag, delivery) -> sink.accept(received(delivery)), tag -> {});
  }

  private static ReceivedEvent received(Delivery delivery) {
    AMQP.BasicProperties properties = delivery.getProperties();
    Map<String, Object> headers =
        properties.getHeaders() == null ? Map.of() : properties.getHeaders();
    return new ReceivedEvent(
        properties.getMessageId(),
        string(headers.get(WireHeaders.AGGREGATE_TYPE)),
        string(headers.get(WireHeaders.AGGREGATE_ID)),
        properties.getType(),
        new String(delivery.getBody(), StandardCharsets.UTF_8));
  }

  private static String string(Object value) {
    return value == null ? null : value.toString();
  }

  /** Deletes the queue and the exchange and disconnects. */
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
