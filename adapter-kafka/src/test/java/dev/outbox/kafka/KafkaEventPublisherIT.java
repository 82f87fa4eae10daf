package dev.outbox.kafka;

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

/** The publisher contract against a real single-node KRaft broker started in this JVM. */
class KafkaEventPublisherIT extends EventPublisherContract {

  private EmbeddedKafka kafka;

  @BeforeAll
  void startKafka() {
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Override
  protected EventPublisher createPublisher() {
    return new KafkaEventPublisher(
        KafkaPublisherOptions.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .metadataTimeout(Duration.ofSeconds(2))
            .build());
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
    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), aggregateType)) {
      return consumer.poll(count, timeout).stream().map(KafkaEventPublisherIT::normalize).toList();
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
