package dev.outbox.servicebus.testing;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import dev.outbox.testkit.ReceivedMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Receives with the real SDK, in {@code RECEIVE_AND_DELETE} mode (the local broker does not emulate
 * peek-lock settlement). One receiver per entity, kept until {@link #close()}.
 */
public final class SdkReceivers implements AutoCloseable {

  private final String connectionString;
  private final Map<String, ServiceBusReceiverClient> receivers = new ConcurrentHashMap<>();

  /**
   * Creates the receivers' factory.
   *
   * @param connectionString the local broker's
   */
  public SdkReceivers(String connectionString) {
    this.connectionString = connectionString;
  }

  /**
   * Receives from a queue or a subscription.
   *
   * @param queue a queue name, or {@code null} for a subscription
   * @param topic the topic of the subscription, or {@code null}
   * @param subscription the subscription, or {@code null}
   * @param count how many to wait for
   * @param timeout how long at most
   * @return what arrived, in order
   */
  public List<ServiceBusReceivedMessage> receive(
      String queue, String topic, String subscription, int count, Duration timeout) {
    String key = queue != null ? queue : LocalServiceBus.subscriptionPath(topic, subscription);
    ServiceBusReceiverClient receiver =
        receivers.computeIfAbsent(key, k -> create(queue, topic, subscription));
    List<ServiceBusReceivedMessage> received = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (received.size() < count && System.nanoTime() < deadline) {
      Duration wait =
          Duration.ofMillis(Math.min(2_000, (deadline - System.nanoTime()) / 1_000_000));
      if (wait.toMillis() <= 0) {
        break;
      }
      receiver.receiveMessages(count - received.size(), wait).forEach(received::add);
    }
    return received;
  }

  private ServiceBusReceiverClient create(String queue, String topic, String subscription) {
    ServiceBusClientBuilder.ServiceBusReceiverClientBuilder builder =
        new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .retryOptions(
                new AmqpRetryOptions()
                    .setMode(AmqpRetryMode.FIXED)
                    .setMaxRetries(5)
                    .setDelay(Duration.ofMillis(500))
                    .setTryTimeout(Duration.ofSeconds(5)))
            .receiver()
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE);
    builder = queue != null ? builder.queueName(queue) : builder.topicName(topic);
    if (queue == null) {
      builder = builder.subscriptionName(subscription);
    }
    return builder.buildClient();
  }

  /**
   * The contract's normal form of a received message.
   *
   * @param destination where it came from
   * @param message the SDK's message
   * @return the normal form
   */
  public static ReceivedMessage normalize(String destination, ServiceBusReceivedMessage message) {
    Map<String, String> headers = new LinkedHashMap<>();
    message.getApplicationProperties().forEach((k, v) -> headers.put(k, String.valueOf(v)));
    String key =
        message.getSessionId() != null ? message.getSessionId() : message.getPartitionKey();
    return new ReceivedMessage(
        destination,
        message.getMessageId(),
        key,
        headers,
        message.getBody().toBytes(),
        message.getContentType());
  }

  @Override
  public void close() {
    receivers.values().forEach(ServiceBusReceiverClient::close);
    receivers.clear();
  }
}
