package dev.outbox.samples.boot;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * What another service would see: reads the {@code orders} topic and logs every event the outbox
 * delivered, with its type, key and offset.
 */
@Component
public class DeliveredEvents implements SmartLifecycle {

  private static final Logger LOG = LoggerFactory.getLogger(DeliveredEvents.class);

  /**
   * One event as it arrived.
   *
   * @param eventType the {@code outbox-event-type} header
   * @param orderId the record's key
   * @param payload the JSON body
   */
  public record Delivered(String eventType, String orderId, String payload) {}

  private final String bootstrapServers;
  private final List<Delivered> received = new CopyOnWriteArrayList<>();
  private volatile KafkaConsumer<String, byte[]> consumer;
  private volatile Thread thread;

  /**
   * The reader.
   *
   * @param bootstrapServers the Kafka the outbox publishes to
   */
  public DeliveredEvents(@Value("${outbox.kafka.bootstrap-servers}") String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * Everything read so far.
   *
   * @return the events, in arrival order
   */
  public List<Delivered> received() {
    return List.copyOf(received);
  }

  @Override
  public void start() {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "orders-sample-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    consumer.subscribe(List.of("orders"));
    thread = new Thread(this::read, "orders-sample-reader");
    thread.setDaemon(true);
    thread.start();
  }

  private void read() {
    try {
      while (!Thread.currentThread().isInterrupted()) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          Header type = record.headers().lastHeader("outbox-event-type");
          Delivered event =
              new Delivered(
                  type == null ? "?" : new String(type.value(), StandardCharsets.UTF_8),
                  record.key(),
                  new String(record.value(), StandardCharsets.UTF_8));
          received.add(event);
          LOG.info(
              "delivered {} of order {} (partition {}, offset {}): {}",
              event.eventType(),
              event.orderId(),
              record.partition(),
              record.offset(),
              event.payload());
        }
      }
    } catch (WakeupException stopping) {
      // stop() woke the consumer
    } finally {
      consumer.close();
    }
  }

  @Override
  public void stop() {
    Thread running = thread;
    if (running != null) {
      consumer.wakeup();
      try {
        running.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      thread = null;
    }
  }

  @Override
  public boolean isRunning() {
    return thread != null;
  }
}
