package dev.outbox.kafka;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.kafka.internal.ClusterContact;
import dev.outbox.kafka.internal.KafkaFailures;
import dev.outbox.kafka.internal.PipelinedBatch;
import dev.outbox.kafka.internal.ProducerClient;
import dev.outbox.kafka.internal.ProducerSettings;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox messages to Kafka through one idempotent producer ({@code acks=all}, {@code
 * enable.idempotence=true}).
 *
 * <p>Each message becomes a record on the topic {@link KafkaPublisherOptions#topicFor} gives (by
 * default its aggregate type), keyed by the aggregate id so that one aggregate's events share a
 * partition and keep their order, with the payload's UTF-8 bytes as value and {@link
 * dev.outbox.spi.WireHeaders} as headers. A batch is pipelined: every record is sent, the producer
 * is asked to flush them in one request, and the acknowledgements are awaited together until the
 * timeout.
 *
 * <p>A cluster that cannot be reached, no acknowledgement within {@code delivery.timeout.ms}, the
 * retriable Kafka errors about the cluster (network, no leader, not enough replicas), refused
 * credentials or permissions, and a producer that cannot be created or was closed are {@linkplain
 * PublishException#isBrokerFault() the broker's fault}: no message is to blame. A topic the cluster
 * does not have is the message's, retryable: the producer reports it and an unreachable cluster
 * with the same timeout, and the adapter tells them apart by whether any broker answered during the
 * lookup. Records too large, invalid records and topic names are the message's, permanent. {@link
 * #publish} never throws and returns within its timeout (plus the metadata timeout in the rare case
 * the producer's buffer is full). Thread-safe.
 */
public final class KafkaEventPublisher implements EventPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventPublisher.class);

  private final KafkaPublisherOptions options;
  private final Map<String, Object> producerConfig;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean hardCapWarned = new AtomicBoolean();
  private final Duration deliveryTimeout;
  private final KafkaFailures failures;
  private ProducerClient client; // guarded by this

  /**
   * Checks the configuration. The producer itself is created by the first batch, and created again
   * by the next batch while that fails (for example while the broker's host name does not resolve
   * yet), so that the outbox can start before Kafka.
   *
   * @param options where to connect and how to route
   * @throws org.apache.kafka.common.config.ConfigException when a producer property is invalid
   */
  public KafkaEventPublisher(KafkaPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
    this.producerConfig = ProducerSettings.producerConfig(options);
    new ProducerConfig(producerConfig);
    this.failures = new KafkaFailures(ProducerSettings.saslUser(producerConfig));
    this.deliveryTimeout = ProducerSettings.deliveryTimeout(options.producerProperties());
    LOG.info("Kafka publisher created: {}", options);
  }

  /**
   * The options this publisher was created with.
   *
   * @return the options
   */
  public KafkaPublisherOptions options() {
    return options;
  }

  /** {@return {@code kafka}, its name in the OpenTelemetry messaging conventions} */
  @Override
  public String messagingSystem() {
    return "kafka";
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    if (messages == null || messages.isEmpty()) {
      return List.of();
    }
    if (closed.get()) {
      return failAll(messages, "the Kafka publisher is closed", null);
    }
    ProducerClient current;
    try {
      current = client();
    } catch (RuntimeException | LinkageError e) {
      // No message is to blame: every batch fails until the producer can be created.
      String reason =
          "the Kafka producer could not be created: "
              + (e.getCause() == null ? e : e.getMessage() + ": " + e.getCause());
      LOG.debug("Publishing a batch of {} failed: {}", messages.size(), reason);
      return failAll(messages, reason, e);
    }
    try {
      Duration budget = timeout == null || timeout.isNegative() ? Duration.ZERO : timeout;
      warnIfRecordsOutliveTheHardCap(budget);
      List<PublishResult> results = new PipelinedBatch(current, options, messages, budget).run();
      if (LOG.isDebugEnabled()) {
        long published = results.stream().filter(PublishResult::isPublished).count();
        LOG.debug("Published {} of {} messages to Kafka", published, messages.size());
      }
      return results;
    } catch (RuntimeException | LinkageError e) {
      // Per batch; the reason is in every result, and the outbox logs the outage once.
      LOG.debug("Publishing a batch of {} failed: {}", messages.size(), e.toString());
      List<PublishResult> results = new ArrayList<>(messages.size());
      for (OutboxMessage message : messages) {
        results.add(
            PublishResult.failed(
                message.id(),
                failures.classify(message.id(), null, e, () -> ClusterContact.Seen.NOTHING)));
      }
      return results;
    }
  }

  /**
   * A record the producer holds ends within {@code delivery.timeout.ms}. When that is not below the
   * outbox's hard cap (twice the publish timeout), a send cut by an outage is ended by the hard cap
   * instead ({@link #recreateClient()}), and the outbox keeps its aggregate until its lease runs
   * out: recovery after the broker's return then waits for leases. Said once.
   */
  private void warnIfRecordsOutliveTheHardCap(Duration publishTimeout) {
    if (!publishTimeout.isZero()
        && deliveryTimeout.compareTo(publishTimeout.multipliedBy(2)) >= 0
        && hardCapWarned.compareAndSet(false, true)) {
      LOG.warn(
          "Kafka producer property delivery.timeout.ms ({} ms) is not below twice the publish"
              + " timeout it is called with ({} ms): a send cut by a broker outage is ended by the"
              + " outbox's hard cap, and its aggregate waits for its lease after the broker is"
              + " back; set delivery.timeout.ms below {} ms (and request.timeout.ms + linger.ms"
              + " below that)",
          deliveryTimeout.toMillis(),
          publishTimeout.toMillis(),
          publishTimeout.multipliedBy(2).toMillis());
    }
  }

  /** Fails a batch for the broker's or the client's fault: no message is to blame. */
  private static List<PublishResult> failAll(
      List<OutboxMessage> messages, String reason, Throwable cause) {
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      results.add(
          PublishResult.failed(
              message.id(), PublishException.brokerUnavailable(message.id(), null, reason, cause)));
    }
    return results;
  }

  private synchronized ProducerClient client() {
    if (closed.get()) {
      throw new IllegalStateException("the Kafka publisher is closed");
    }
    if (client == null) {
      client = ProducerClient.open(producerConfig);
    }
    return client;
  }

  /**
   * Closes the producer at once, failing every send it still holds (a record it never got an answer
   * for is then not retried by it behind the outbox's back), and lets the next batch create a new
   * one, with a new producer id.
   */
  @Override
  public void recreateClient() {
    ProducerClient stuck;
    synchronized (this) {
      if (client == null || closed.get()) {
        return;
      }
      stuck = client;
      client = null;
    }
    LOG.warn(
        "Recreating the Kafka producer: a send had no outcome within the outbox's hard cap; what"
            + " it still holds fails and is sent again later");
    stuck.close(Duration.ZERO);
  }

  /** Flushes what is in flight for up to {@link KafkaPublisherOptions#closeTimeout()}. */
  @Override
  public synchronized void close() {
    if (closed.compareAndSet(false, true)) {
      if (client != null) {
        client.close(options.closeTimeout());
        client = null;
      }
      LOG.info("Kafka publisher closed");
    }
  }

  @Override
  public String toString() {
    return "KafkaEventPublisher[" + options + ']';
  }
}
