package dev.outbox.kafka.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from the beginning without a consumer group: all partitions assigned, nothing
 * committed. Records of one partition come in their order.
 */
public final class TestConsumer implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;

  /**
   * A consumer of every partition of a topic, from the first offset.
   *
   * @param bootstrapServers the broker
   * @param topic the topic, which must exist
   */
  public TestConsumer(String bootstrapServers, String topic) {
    consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                "2000",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"));
    List<TopicPartition> partitions = new ArrayList<>();
    consumer
        .partitionsFor(topic, Duration.ofSeconds(30))
        .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /**
   * Polls until {@code count} records arrived or the time is up.
   *
   * @param count how many to wait for
   * @param timeout how long at most
   * @return the records in arrival order
   */
  public List<ConsumerRecord<String, byte[]>> poll(int count, Duration timeout) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    pollUntil(records::add, () -> records.size() >= count, timeout);
    return records;
  }

  /**
   * Polls, handing each record to {@code sink}, until {@code done} or the time is up.
   *
   * @param sink receives each record in arrival order
   * @param done checked after each poll
   * @param timeout how long at most
   */
  public void pollUntil(
      Consumer<ConsumerRecord<String, byte[]>> sink,
      java.util.function.BooleanSupplier done,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(sink);
    }
  }

  /**
   * The headers of a record as strings, in order.
   *
   * @param record the record
   * @return name to UTF-8 value
   */
  public static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
