package dev.outbox.servicebus.testing;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverAsyncClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import reactor.core.Disposable;

/**
 * Receives from a queue with the SDK's streaming receiver until closed, in {@code
 * RECEIVE_AND_DELETE} mode. When the stream fails it builds a new receiver, but messages the
 * receiver had prefetched when its connection died are lost: the broker deleted them when it sent
 * them. Do not keep one running across a broker outage that a test counts messages through.
 */
public final class QueueConsumer implements AutoCloseable {

  private final String connectionString;
  private final String queue;
  private final Consumer<ServiceBusReceivedMessage> handler;
  private final Thread thread;
  private final AtomicInteger failures = new AtomicInteger();
  private volatile boolean running = true;

  /**
   * Starts consuming.
   *
   * @param connectionString the broker's
   * @param queue the queue
   * @param handler called for each message, on the consumer's thread, in arrival order
   */
  public QueueConsumer(
      String connectionString, String queue, Consumer<ServiceBusReceivedMessage> handler) {
    this.connectionString = connectionString;
    this.queue = queue;
    this.handler = handler;
    this.thread = new Thread(this::run, "consumer-" + queue);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * How often receiving failed (and the receiver was rebuilt).
   *
   * @return the count
   */
  public int failures() {
    return failures.get();
  }

  private void run() {
    while (running) {
      ServiceBusReceiverAsyncClient receiver = create();
      CountDownLatch ended = new CountDownLatch(1);
      Disposable subscription =
          receiver
              .receiveMessages()
              .subscribe(
                  handler,
                  error -> {
                    failures.incrementAndGet();
                    ended.countDown();
                  },
                  ended::countDown);
      try {
        while (running && !ended.await(200, TimeUnit.MILLISECONDS)) {
          // receiving
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      } finally {
        subscription.dispose();
        receiver.close();
      }
      if (running) {
        sleep();
      }
    }
  }

  private ServiceBusReceiverAsyncClient create() {
    return new ServiceBusClientBuilder()
        .connectionString(connectionString)
        .retryOptions(
            new AmqpRetryOptions()
                .setMode(AmqpRetryMode.FIXED)
                .setMaxRetries(1)
                .setDelay(Duration.ofMillis(200))
                .setTryTimeout(Duration.ofSeconds(3)))
        .receiver()
        .queueName(queue)
        .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE)
        // At most the SDK's delivery buffer (Reactor's small buffer, 256): a larger prefetch lets a
        // backlog overflow it, and the SDK then closes the link ("delivery-buffer-overflow") and
        // opens a new one without an error downstream, losing what it had prefetched, which the
        // broker already deleted in this mode.
        .prefetchCount(200)
        .buildAsyncClient();
  }

  private static void sleep() {
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
