package com.example.orders;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The consuming service's side, here only so that the quick start can show the event arrive: a
 * queue of its own bound to the exchange the outbox publishes to. The outbox publishes {@code
 * mandatory}, with the event type as the routing key: an event no queue is bound for is refused by
 * RabbitMQ and retried, so bind the queue before the first event is sent.
 */
final class OrderEvents implements AutoCloseable {

  private final Connection connection;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

  /** An event as it arrived: which aggregate it is about, and how to print it. */
  private record Received(String aggregateId, String text) {}

  private OrderEvents(Connection connection) {
    this.connection = connection;
  }

  /**
   * Declares the exchange (as the outbox's publisher expects it: topic, durable) and a queue that
   * lives as long as this connection, bound for one event type, and starts consuming it.
   *
   * @param amqpUri the broker, {@code amqp://user:password@host:5672/vhost}
   * @param exchange the exchange the outbox publishes to
   * @param eventType the routing key to bind
   * @return the consumer
   * @throws Exception when RabbitMQ cannot be reached or refuses
   */
  static OrderEvents subscribe(String amqpUri, String exchange, String eventType)
      throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(amqpUri);
    OrderEvents events;
    try {
      events = new OrderEvents(factory.newConnection("orders-quickstart-consumer"));
    } catch (PossibleAuthenticationFailureException e) {
      throw new IllegalStateException(
          "RabbitMQ at %s:%d refused user '%s': fix the user or password in the AMQP URI"
              .formatted(factory.getHost(), factory.getPort(), factory.getUsername()),
          e);
    }
    Channel channel = events.connection.createChannel();
    channel.exchangeDeclare(exchange, "topic", true);
    String queue = channel.queueDeclare().getQueue(); // server-named, exclusive, auto-delete
    channel.queueBind(queue, exchange, eventType);
    channel.basicConsume(
        queue,
        true,
        (tag, delivery) -> {
          Map<String, Object> headers = delivery.getProperties().getHeaders();
          String aggregateId = String.valueOf(headers.get("outbox-aggregate-id"));
          events.received.add(
              new Received(
                  aggregateId,
                  delivery.getProperties().getType()
                      + " of "
                      + headers.get("outbox-aggregate-type")
                      + ' '
                      + aggregateId
                      + ": "
                      + new String(delivery.getBody(), StandardCharsets.UTF_8)));
        },
        tag -> {});
    return events;
  }

  /**
   * Waits for an event of one aggregate, passing over those of others (another run's, say).
   *
   * @param aggregateId the aggregate's id
   * @param timeout how long at most
   * @return the event type, the aggregate and the JSON payload, or {@code null} when none came
   * @throws InterruptedException when interrupted while waiting
   */
  String await(String aggregateId, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Received next;
    do {
      next = received.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    } while (next != null && !next.aggregateId().equals(aggregateId));
    return next == null ? null : next.text();
  }

  @Override
  public void close() throws Exception {
    connection.close();
  }
}
