package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.spi.PublishResult;
import dev.outbox.testkit.TestMessages;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a batch reports failures whose fault depends on the batch: missing topics, held back. */
class PipelinedBatchTest {

  private static final String TOPIC = "orders";
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final MockProducer<String, byte[]> producer =
      new MockProducer<>(cluster(), false, null, new StringSerializer(), new ByteArraySerializer());
  private final AtomicInteger responses = new AtomicInteger();
  private final ProducerClient client = ProducerClient.of(producer, new KafkaFailures("app"));

  @AfterEach
  void close() {
    client.close(Duration.ZERO);
  }

  @Test
  void sendThatFailsForTheBrokerHoldsBackTheAggregatesNextMessageAsTheBrokersFault() {
    producer.sendException = new NetworkException("connection reset");
    List<OutboxMessage> batch = TestMessages.batch(TOPIC, 1, 2);

    List<PublishResult> results = run(batch);

    assertThat(results).allSatisfy(r -> assertThat(r.failure().isBrokerFault()).isTrue());
    assertThat(results.get(1).failure()).hasMessageContaining("an earlier message of");
  }

  @Test
  void sendThatFailsForTheMessageHoldsBackTheAggregatesNextMessageAsTheMessagesFault() {
    producer.sendException = new RecordTooLargeException("too large");
    List<OutboxMessage> batch = TestMessages.batch(TOPIC, 1, 2);

    List<PublishResult> results = run(batch);

    assertThat(results.get(0).failure().isRetryable()).isFalse();
    assertThat(results.get(1).failure().isBrokerFault()).isFalse();
    assertThat(results.get(1).failure().isRetryable()).isTrue();
    assertThat(results.get(1).failure()).hasMessageContaining("an earlier message of");
  }

  @Test
  void topicMissingWhileTheClusterAnswersIsTheMessagesFault() {
    metrics(1);
    producer.partitionsForException =
        new TimeoutException("Topic orders not present in metadata after 100 ms.");

    List<PublishResult> results = run(TestMessages.batch(TOPIC, 2, 1));

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.failure().isBrokerFault()).as("%s", r.failure()).isFalse();
              assertThat(r.failure().isRetryable()).isTrue();
              assertThat(r.failure()).hasMessageContaining("does not exist");
            });
  }

  @Test
  void topicMissingWhileNoBrokerAnswersIsTheBrokersFault() {
    metrics(0);
    producer.partitionsForException =
        new TimeoutException("Topic orders not present in metadata after 100 ms.");

    List<PublishResult> results = run(TestMessages.batch(TOPIC, 2, 1));

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.failure().isBrokerFault()).as("%s", r.failure()).isTrue();
              assertThat(r.failure()).hasMessageContaining("Kafka is unreachable");
            });
  }

  private List<PublishResult> run(List<OutboxMessage> batch) {
    return new PipelinedBatch(client, KafkaPublisherOptions.defaults(), batch, TIMEOUT).run();
  }

  /**
   * The producer's network metrics: responses that grow at each reading when the cluster answers,
   * and {@code connections} open connections.
   */
  private void metrics(int connections) {
    producer.setMockMetrics(
        name(ClusterContact.RESPONSES),
        metric(
            ClusterContact.RESPONSES,
            () -> connections > 0 ? responses.incrementAndGet() : responses.get()));
    producer.setMockMetrics(
        name(ClusterContact.FAILED_AUTHENTICATIONS),
        metric(ClusterContact.FAILED_AUTHENTICATIONS, () -> 0));
    producer.setMockMetrics(
        name(ClusterContact.CONNECTIONS), metric(ClusterContact.CONNECTIONS, () -> connections));
  }

  private static MetricName name(String name) {
    return new MetricName(name, ClusterContact.GROUP, "", Map.of());
  }

  private static Metric metric(String name, java.util.function.IntSupplier value) {
    return new Metric() {
      @Override
      public MetricName metricName() {
        return name(name);
      }

      @Override
      public Object metricValue() {
        return (double) value.getAsInt();
      }
    };
  }

  private static Cluster cluster() {
    Node node = new Node(1, "127.0.0.1", 9092);
    return new Cluster(
        "test",
        List.of(node),
        List.of(new PartitionInfo(TOPIC, 0, node, new Node[] {node}, new Node[] {node})),
        Set.of(),
        Set.of());
  }
}
