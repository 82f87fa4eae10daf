package dev.outbox.benchmarks.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.OutboxMessage;
import dev.outbox.rabbitmq.RabbitMqEventPublisher;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TcpProxy;
import java.io.IOException;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * RabbitMQ on 127.0.0.1:5672 (guest/guest): a durable topic exchange {@value #EXCHANGE} with one
 * durable queue bound to everything (so that mandatory publishes route), emptied before each run,
 * and the bare client's ceiling: one confirm-mode channel publishing every message (persistent,
 * mandatory, the adapter's properties and headers) and then waiting for all confirms. A {@link
 * TcpProxy} of its own in front of the server lets the outage take RabbitMQ away from one publisher
 * while the shared server keeps running.
 */
public final class RabbitBench implements BareClientBroker, ProxiedBroker, AutoCloseable {

  /** The exchange. */
  public static final String EXCHANGE = "bench.events";

  /** The relay's aggregate type. */
  public static final String AGGREGATE_TYPE = "bench-rabbitmq";

  private static final String HOST = "127.0.0.1";
  private static final int PORT = 5672;
  private static final String QUEUE = "bench.events.all";
  private static final long CONFIRM_TIMEOUT_MS = 120_000;

  private final Connection admin;
  private final TcpProxy proxy;

  private RabbitBench(Connection admin, TcpProxy proxy) {
    this.admin = admin;
    this.proxy = proxy;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public String ceilingBound() {
    return "bare amqp-client, 1 channel, streaming confirms";
  }

  @Override
  public String aggregateType() {
    return AGGREGATE_TYPE;
  }

  /**
   * Connects, declares the exchange and queue, and opens the proxy.
   *
   * @return the setup
   */
  public static RabbitBench start() {
    try {
      Connection connection = factory().newConnection("outbox-benchmarks-admin");
      try (Channel channel = connection.createChannel()) {
        channel.exchangeDeclare(EXCHANGE, "topic", true);
        channel.queueDelete(QUEUE);
        channel.queueDeclare(QUEUE, true, false, false, Map.of());
        channel.queueBind(QUEUE, EXCHANGE, "#");
      }
      return new RabbitBench(connection, new TcpProxy(HOST, PORT));
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException("RabbitMQ setup failed: " + e, e);
    }
  }

  /** Empties the queue. */
  @Override
  public void purge() {
    try (Channel channel = admin.createChannel()) {
      channel.queuePurge(QUEUE);
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException("RabbitMQ purge failed: " + e, e);
    }
  }

  /**
   * A new adapter publisher on the exchange.
   *
   * @return the publisher
   */
  @Override
  public EventPublisher publisher() {
    return publisher(PORT);
  }

  @Override
  public TcpProxy proxy() {
    return proxy;
  }

  /**
   * A new adapter publisher on the exchange through {@link #proxy()}, with the adapter's default
   * {@code recoveryInterval} (1 s).
   *
   * @return the publisher
   */
  @Override
  public EventPublisher publisherThroughProxy() {
    return publisher(proxy.port());
  }

  private static EventPublisher publisher(int port) {
    return new RabbitMqEventPublisher(
        RabbitMqPublisherOptions.builder().host(HOST).port(port).exchange(EXCHANGE).build());
  }

  /**
   * The bare client's ceiling.
   *
   * @param messages how many
   * @param aggregates over how many aggregates
   * @return messages per second
   */
  @Override
  public double ceiling(int messages, int aggregates) {
    purge();
    try (Connection connection = factory().newConnection("outbox-benchmarks-ceiling");
        Channel channel = connection.createChannel()) {
      channel.confirmSelect();
      long start = System.nanoTime();
      for (int i = 0; i < messages; i++) {
        OutboxMessage message = SyntheticMessages.message(AGGREGATE_TYPE, i, aggregates);
        channel.basicPublish(
            EXCHANGE, message.eventType(), true, properties(message), message.payloadBytes());
      }
      channel.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MS);
      double seconds = (System.nanoTime() - start) / 1e9;
      return messages / seconds;
    } catch (IOException | TimeoutException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("RabbitMQ ceiling failed: " + e, e);
    } finally {
      purge();
    }
  }

  private static AMQP.BasicProperties properties(OutboxMessage message) {
    Map<String, Object> headers = new LinkedHashMap<>(WireHeaders.of(message));
    return new AMQP.BasicProperties.Builder()
        .messageId(message.id().toString())
        .type(message.eventType())
        .contentType(message.contentType())
        .timestamp(Date.from(message.occurredAt()))
        .deliveryMode(2)
        .headers(headers)
        .build();
  }

  private static ConnectionFactory factory() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(HOST);
    factory.setPort(PORT);
    factory.setUsername("guest");
    factory.setPassword("guest");
    return factory;
  }

  @Override
  public void close() {
    proxy.close();
    try (Channel channel = admin.createChannel()) {
      channel.queueDelete(QUEUE);
    } catch (IOException | TimeoutException e) {
      // left for the next run's start, which deletes it
    }
    try {
      admin.close();
    } catch (IOException e) {
      // closing
    }
  }
}
