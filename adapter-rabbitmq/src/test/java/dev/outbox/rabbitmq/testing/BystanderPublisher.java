package dev.outbox.rabbitmq.testing;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Another client of the shared RabbitMQ, publishing all along while a test cuts its own publisher
 * off: it connects directly, never through the test's proxy, with automatic recovery off, so that
 * anything that disturbed the broker itself (a stop, a restart, a closed connection) shows as an
 * interruption. It publishes one message after the other with publisher confirms to a queue of its
 * own, which {@link #close()} deletes.
 */
public final class BystanderPublisher implements AutoCloseable {

  private final Connection connection;
  private final Channel channel;
  private final String queue;
  private final Thread thread;
  private final AtomicLong confirmed = new AtomicLong();
  private final List<String> interruptions = new CopyOnWriteArrayList<>();
  private volatile boolean running = true;

  private BystanderPublisher() throws IOException, TimeoutException {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(RabbitMqTestBroker.HOST);
    factory.setPort(RabbitMqTestBroker.PORT);
    factory.setAutomaticRecoveryEnabled(false);
    connection = factory.newConnection(RabbitMqTestBroker.name("bystander"));
    connection.addShutdownListener(
        cause -> {
          if (!cause.isInitiatedByApplication()) {
            interruptions.add("connection closed: " + cause.getMessage());
          }
        });
    channel = connection.createChannel();
    queue = RabbitMqTestBroker.name("bystander");
    channel.queueDeclare(queue, false, false, false, null);
    channel.confirmSelect();
    thread = new Thread(this::publish, "rabbitmq-bystander");
    thread.setDaemon(true);
  }

  /**
   * Connects to the shared broker and starts publishing.
   *
   * @return the running bystander
   * @throws IOException when the broker refuses
   * @throws TimeoutException when it does not answer
   */
  public static BystanderPublisher start() throws IOException, TimeoutException {
    BystanderPublisher bystander = new BystanderPublisher();
    bystander.thread.start();
    return bystander;
  }

  private void publish() {
    byte[] body = "bystander".getBytes(StandardCharsets.UTF_8);
    while (running) {
      try {
        channel.basicPublish("", queue, null, body);
        channel.waitForConfirmsOrDie(5_000);
        confirmed.incrementAndGet();
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | TimeoutException | RuntimeException e) {
        if (running) {
          interruptions.add("publish failed after " + confirmed.get() + " confirms: " + e);
        }
        return;
      }
    }
  }

  /**
   * How many messages the broker confirmed so far.
   *
   * @return the count
   */
  public long confirmed() {
    return confirmed.get();
  }

  /**
   * What interrupted publishing: a failed or unconfirmed publish, a connection the broker closed.
   *
   * @return empty while nothing did
   */
  public List<String> interruptions() {
    return List.copyOf(interruptions);
  }

  /**
   * How many of its messages the broker holds in its queue (none is consumed).
   *
   * @return the queue's message count
   * @throws IOException when the queue is gone or the broker refuses
   */
  public long queued() throws IOException {
    return channel.queueDeclarePassive(queue).getMessageCount();
  }

  /** Stops publishing, deletes the queue and disconnects. */
  @Override
  public void close() throws Exception {
    running = false;
    thread.join(10_000);
    if (connection.isOpen()) {
      channel.queueDelete(queue);
      connection.close();
    }
  }
}
