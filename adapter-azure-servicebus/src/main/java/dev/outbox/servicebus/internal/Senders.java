package dev.outbox.servicebus.internal;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderAsyncClient;
import dev.outbox.servicebus.ServiceBusPublisherOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One SDK sender per entity, created on first use; all share the connection of one {@link
 * ServiceBusClientBuilder}. Creating a sender does no I/O: the SDK connects on the first send.
 */
public final class Senders implements AutoCloseable {

  private final ServiceBusClientBuilder builder;
  private final Map<String, ServiceBusSenderAsyncClient> senders = new ConcurrentHashMap<>();

  /**
   * Prepares the client builder.
   *
   * @param options connection, retries and transport
   */
  public Senders(ServiceBusPublisherOptions options) {
    ServiceBusClientBuilder b = new ServiceBusClientBuilder();
    if (options.connectionString() != null) {
      b.connectionString(options.connectionString());
    } else {
      b.credential(options.namespace(), options.credential());
    }
    this.builder = b.transportType(options.transportType()).retryOptions(retryOptions(options));
  }

  /**
   * The SDK's retries derived from the options: fixed short delay, the configured try timeout and
   * retries, so that an unreachable namespace fails within {@code tryTimeout * (maxRetries + 1)}
   * instead of the SDK default of about four minutes.
   *
   * @param options the options
   * @return the retry options
   */
  public static AmqpRetryOptions retryOptions(ServiceBusPublisherOptions options) {
    return new AmqpRetryOptions()
        .setMode(AmqpRetryMode.FIXED)
        .setMaxRetries(options.maxRetries())
        .setDelay(Duration.ofMillis(200))
        .setMaxDelay(Duration.ofSeconds(1))
        .setTryTimeout(options.tryTimeout());
  }

  /**
   * The sender of an entity.
   *
   * @param entity a queue or topic name
   * @return its sender, created on first use
   */
  public ServiceBusSenderAsyncClient sender(String entity) {
    // queueName() only names the link target: a topic name works the same for sending.
    return senders.computeIfAbsent(entity, e -> builder.sender().queueName(e).buildAsyncClient());
  }

  @Override
  public void close() {
    senders.values().forEach(ServiceBusSenderAsyncClient::close);
    senders.clear();
  }
}
