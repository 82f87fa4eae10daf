package dev.outbox.kafka;

import dev.outbox.hibernate.testing.e2e.BrokerOutageContract;
import dev.outbox.kafka.testing.BackgroundConsumer;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The test kit's {@link BrokerOutageContract} on a real Kafka broker in this JVM, one for the
 * class, with a listener reached only through a proxy (the outage cuts the proxy: the broker and
 * the test's consumer stay up) and a SASL listener with one {@code PLAIN} user (the credentials).
 * The poison message is larger than its topic's {@code max.message.bytes}: the adapter calls that
 * permanent, so it is dead-lettered after one attempt, not {@link #MAX_ATTEMPTS}.
 */
class KafkaBrokerOutageIT extends BrokerOutageContract {

  private static final String USER = "outbox";
  private static final String PASSWORD = "outbox-secret";
  private static final int PARTITIONS = 6;

  private EmbeddedKafka kafka;

  @BeforeAll
  void startKafka() {
    RequiredServer.assumePostgres();
    kafka = EmbeddedKafka.builder().proxied().saslUser(USER, PASSWORD).start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Override
  protected String databaseName() {
    return "kafka_outage";
  }

  @Override
  protected String brokerName() {
    return "Kafka";
  }

  /** Bootstraps from the proxy's port, which the broker advertises: nothing bypasses the proxy. */
  @Override
  protected Behind createPublisherBehindProxy() {
    return new Behind(
        new KafkaEventPublisher(options(kafka.proxiedBootstrapServers()).build()), kafka.proxy());
  }

  @Override
  protected EventPublisher createPublisher(String password) {
    return new KafkaEventPublisher(
        options(kafka.saslBootstrapServers())
            .producerProperties(EmbeddedKafka.saslProperties(USER, password))
            .build());
  }

  @Override
  protected String password() {
    return PASSWORD;
  }

  @Override
  protected String refusedCredentialsOf() {
    return "SASL user '" + USER + "'";
  }

  @Override
  protected void prepareDestination(String aggregateType) {
    kafka.createTopic(aggregateType, PARTITIONS);
  }

  @Override
  protected AutoCloseable receive(String aggregateType, DeliveryCheck check) {
    return new BackgroundConsumer(kafka.bootstrapServers(), aggregateType, check);
  }

  /** A topic that takes no record of 100 bytes or more: the broker refuses each for its size. */
  @Override
  protected Poison preparePoison() {
    String type = TestMessages.aggregateType("poison");
    kafka.createTopic(type, 1, Map.of("max.message.bytes", "100"));
    return new Poison(type, 1, List.of("RecordTooLargeException"));
  }

  /**
   * The producer gives up on a record within 3 s, under the outbox's hard cap (twice the 2 s
   * publish timeout): a send cut by the outage then ends with the producer's own timeout, a broker
   * fault, and its aggregate is due again at once. With the default 30 s the hard cap would
   * recreate the producer, and the aggregates it held would wait for their lease to run out.
   */
  private static KafkaPublisherOptions.Builder options(String bootstrapServers) {
    return KafkaPublisherOptions.builder()
        .bootstrapServers(bootstrapServers)
        .metadataTimeout(Duration.ofSeconds(2))
        .producerProperty("delivery.timeout.ms", "3000")
        .producerProperty("request.timeout.ms", "2000");
  }
}
