package dev.outbox.kafka;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.kafka.internal.Flusher;
import dev.outbox.kafka.internal.PipelinedBatch;
import dev.outbox.kafka.internal.ProducerSettings;
import dev.outbox.kafka.internal.TopicMetadata;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
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
 * <p>Timeouts, an unreachable broker, a topic missing from the metadata and every retriable Kafka
 * error are retryable failures; authorization errors, records too large, invalid records and topic
 * names are not. {@link #publish} never throws and returns within its timeout (plus the metadata
 * timeout in the rare case the producer's buffer is full). Thread-safe.
 */
public final class KafkaEventPublisher implements EventPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventPublisher.class);

  private final KafkaPublisherOptions options;
  private final Map<String, Object> producerConfig;
  private final AtomicBoolean closed = new AtomicBoolean();
  private Client client; // guarded by this

  /** A producer and its helpers, created and closed together. */
  private record Client(
      Producer<String, byte[]> producer, TopicMetadata metadata, Flusher flusher) {

    static Client open(Map<String, Object> config) {
      Producer<String, byte[]> producer = new KafkaProducer<>(config);
      return new Client(producer, new TopicMetadata(producer), new Flusher(producer));
    }

    /** Closes the producer within {@code timeout} (zero: at once, failing what it holds). */
    void close(Duration timeout) {
      try {
        metadata.close();
        producer.close(timeout);
      } finally {
        flusher.close();
      }
    }
  }

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
    try {
      Duration budget = timeout == null || timeout.isNegative() ? Duration.ZERO : timeout;
      Client current = client();
      List<PublishResult> results =
          new PipelinedBatch(
                  current.producer(),
                  options,
                  current.metadata(),
                  current.flusher(),
                  messages,
                  budget)
              .run();
      if (LOG.isDebugEnabled()) {
        long published = results.stream().filter(PublishResult::isPublished).count();
        LOG.debug("Published {} of {} messages to Kafka", published, messages.size());
      }
      return results;
    } catch (RuntimeException | LinkageError e) {
      String reason =
          "Kafka publish failed: "
              + (e.getCause() == null ? e : e.getMessage() + ": " + e.getCause());
      // Per batch; the reason is in every result, and the outbox logs the outage once.
      LOG.debug("Publishing a batch of {} failed: {}", messages.size(), reason);
      return failAll(messages, reason, e);
    }
  }

  private static List<PublishResult> failAll(
      List<OutboxMessage> messages, String reason, Throwable cause) {
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      results.add(
          PublishResult.failed(
              message.id(), PublishException.retryable(message.id(), null, reason, cause)));
    }
    return results;
  }

  private synchronized Client client() {
    if (closed.get()) {
      throw new IllegalStateException("the Kafka publisher is closed");
    }
    if (client == null) {
      client = Client.open(producerConfig);
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
    Client stuck;
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
