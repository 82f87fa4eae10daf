package dev.outbox.kafka;

import dev.outbox.IncomingMessage;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.kafka.testing.TestConsumer;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.EventPublisherContract;
import dev.outbox.testkit.ReceivedMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The publisher contract against a real single-node KRaft broker started in this JVM, with a
 * listener advertised on a proxy's port (to take the broker away) and a SASL listener (to refuse
 * credentials).
 */
class KafkaEventPublisherIT extends EventPublisherContract {

  private static final String USER = "outbox";
  private static final String PASSWORD = "outbox-secret";

  private EmbeddedKafka kafka;

  @BeforeAll
  void startKafka() {
    kafka = EmbeddedKafka.builder().proxied().saslUser(USER, PASSWORD).start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Override
  protected EventPublisher createPublisher() {
    return new KafkaEventPublisher(options(kafka.bootstrapServers()).build());
  }

  /**
   * Bootstraps from the proxy's port, which the broker advertises: nothing bypasses the proxy. The
   * producer gives up on a record after 4 s, so that the final outcome of a send cut by the proxy
   * (checked to be the broker's fault) comes within the contract's wait for it.
   */
  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(
        new KafkaEventPublisher(
            options(kafka.proxiedBootstrapServers())
                .producerProperty("delivery.timeout.ms", "4000")
                .producerProperty("request.timeout.ms", "3000")
                .build()),
        kafka.proxy());
  }

  @Override
  protected EventPublisher createPublisherWithRefusedCredentials() {
    return new KafkaEventPublisher(
        options(kafka.saslBootstrapServers())
            .producerProperties(EmbeddedKafka.saslProperties(USER, "not-" + PASSWORD))
            .build());
  }

  private static KafkaPublisherOptions.Builder options(String bootstrapServers) {
    return KafkaPublisherOptions.builder()
        .bootstrapServers(bootstrapServers)
        .metadataTimeout(Duration.ofSeconds(2));
  }

  @Override
  protected EventPublisher createUnreachablePublisher() {
    return new KafkaEventPublisher(
        KafkaPublisherOptions.builder().bootstrapServers("127.0.0.1:" + closedLocalPort()).build());
  }

  @Override
  protected void prepareDestination(String aggregateType) {
    kafka.createTopic(aggregateType, 3);
  }

  @Override
  protected List<ReceivedMessage> receive(String aggregateType, int count, Duration timeout) {
    return records(aggregateType, count, timeout).stream()
        .map(KafkaEventPublisherIT::normalize)
        .toList();
  }

  /** Each record as a consumer polled it, read by {@link KafkaIncoming}. */
  @Override
  protected List<IncomingMessage> receiveIncoming(
      String aggregateType, int count, Duration timeout) {
    return records(aggregateType, count, timeout).stream().map(KafkaIncoming::of).toList();
  }

  private List<ConsumerRecord<String, byte[]>> records(
      String aggregateType, int count, Duration timeout) {
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), aggregateType)) {
      return consumer.poll(count, timeout);
    }
  }

  private static ReceivedMessage normalize(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = TestConsumer.headers(record);
    return new ReceivedMessage(
        record.topic(),
        headers.get(WireHeaders.MESSAGE_ID),
        record.key(),
        headers,
        record.value(),
        headers.get(WireHeaders.CONTENT_TYPE));
  }
}
