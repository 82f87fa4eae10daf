package dev.outbox.samples.brokers;

import com.google.inject.Module;
import dev.outbox.kafka.KafkaOutboxModule;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.samples.Order;
import dev.outbox.samples.SetupException;
import dev.outbox.samples.embedded.EmbeddedKafkaBroker;
import dev.outbox.spi.WireHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka: a topic of three partitions for this run ({@code outbox-sample-<run>-Order}, the adapter's
 * default router with a topic prefix), read from the beginning by a consumer without a group.
 */
final class KafkaBroker implements Broker {

  private static final Pattern SERVERS =
      Pattern.compile("[^,\\s:/]+:\\d{1,5}(,[^,\\s:/]+:\\d{1,5})*");
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(5);

  private final EmbeddedKafkaBroker embedded;
  private final String servers;
  private final String prefix;
  private final String topic;
  private boolean topicCreated;
  private volatile KafkaConsumer<String, String> consumer;
  private Thread thread;

  private KafkaBroker(EmbeddedKafkaBroker embedded, String servers, String runId) {
    this.embedded = embedded;
    this.servers = servers;
    this.prefix = "outbox-sample-" + runId + "-";
    this.topic = prefix + Order.AGGREGATE_TYPE;
  }

  static KafkaBroker open(String bootstrapServers, String runId) {
    if (bootstrapServers != null && !SERVERS.matcher(bootstrapServers.strip()).matches()) {
      throw new SetupException(
          "--bootstrap-servers must be host:port[,host:port], but was '"
              + bootstrapServers
              + "'; omit it to use the in-JVM Kafka");
    }
    EmbeddedKafkaBroker embedded = bootstrapServers == null ? EmbeddedKafkaBroker.start() : null;
    String servers = embedded != null ? embedded.bootstrapServers() : bootstrapServers.strip();
    KafkaBroker broker = new KafkaBroker(embedded, servers, runId);
    try {
      broker.createTopic();
      return broker;
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  private void createTopic() {
    try (Admin admin = admin()) {
      admin.describeCluster().nodes().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.of(3), Optional.empty())))
          .all()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      topicCreated = true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SetupException("interrupted while creating topic " + topic);
    } catch (java.util.concurrent.TimeoutException e) {
      throw unreachable();
    } catch (Exception e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw unreachable();
      }
      throw new SetupException(
          "Kafka at " + servers + " refused topic " + topic + ": " + SetupException.describe(e));
    }
  }

  private SetupException unreachable() {
    return new SetupException(
        "Kafka is not reachable at "
            + servers
            + ": start a broker there, or omit --bootstrap-servers to use the in-JVM one");
  }

  private Admin admin() {
    int timeout = (int) ADMIN_TIMEOUT.toMillis();
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout));
  }

  @Override
  public String description() {
    return "Kafka topic " + topic + " at " + servers + (embedded != null ? " (in-JVM broker)" : "");
  }

  @Override
  public Module publisherModule() {
    return new KafkaOutboxModule(
        KafkaPublisherOptions.builder().bootstrapServers(servers).topicPrefix(prefix).build());
  }

  @Override
  public void startConsumer(Consumer<ReceivedEvent> sink) {
    KafkaConsumer<String, String> created =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.CLIENT_ID_CONFIG,
                "outbox-sample-consumer"),
            new StringDeserializer(),
            new StringDeserializer());
    List<TopicPartition> partitions =
        created.partitionsFor(topic, ADMIN_TIMEOUT).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition()))
            .toList();
    created.assign(partitions);
    created.seekToBeginning(partitions);
    consumer = created;
    thread = new Thread(() -> poll(created, sink), "kafka-sample-consumer");
    thread.setDaemon(true);
    thread.start();
  }

  private static void poll(KafkaConsumer<String, String> consumer, Consumer<ReceivedEvent> sink) {
    try (consumer) {
      while (!Thread.currentThread().isInterrupted()) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          sink.accept(
              new ReceivedEvent(
                  header(record, WireHeaders.MESSAGE_ID),
                  header(record, WireHeaders.AGGREGATE_ID),
                  header(record, WireHeaders.EVENT_TYPE),
                  Brokers.instant(header(record, WireHeaders.OCCURRED_AT)),
                  record.value(),
                  Instant.now()));
        }
      }
    } catch (WakeupException e) {
      // closed
    }
  }

  private static String header(ConsumerRecord<String, String> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : Brokers.text(header.value());
  }

  @Override
  public void close() {
    KafkaConsumer<String, String> current = consumer;
    if (current != null) {
      current.wakeup();
      join(thread);
    }
    if (embedded != null) {
      embedded.close();
      return;
    }
    if (!topicCreated) {
      return;
    }
    try (Admin admin = admin()) {
      admin.deleteTopics(List.of(topic)).all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      System.err.println(
          "note: could not delete topic " + topic + ": " + SetupException.describe(e));
    }
  }

  static void join(Thread thread) {
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
