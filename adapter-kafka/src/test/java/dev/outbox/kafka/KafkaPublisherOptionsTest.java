package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.outbox.OutboxMessage;
import dev.outbox.testkit.DocumentedKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class KafkaPublisherOptionsTest {

  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
          + " password=\"hunter2-jaas\";";

  @Test
  void theRecordForAMessageIsOnTheRoutedPrefixedTopicKeyedByTheAggregateId() {
    KafkaPublisherOptions options =
        KafkaPublisherOptions.builder()
            .topicPrefix("p.")
            .topicRouter(m -> "routed-" + m.aggregateType())
            .build();
    OutboxMessage message = message("Order");

    var record = options.recordFor(message);

    assertThat(record.topic()).isEqualTo("p.routed-Order");
    assertThat(record.key()).isEqualTo(message.aggregateId());
    assertThat(new String(record.value(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(message.payload());
  }

  @Test
  void theProducerConfigHoldsTheUsersPropertiesAndWhatCannotBeChanged() {
    Map<String, String> properties = Map.of("linger.ms", "7");
    Map<String, Object> config =
        KafkaPublisherOptions.builder()
            .bootstrapServers("127.0.0.1:9092")
            .producerProperties(properties)
            .build()
            .producerConfig();

    assertThat(config).contains(entry("acks", "all"), entry("linger.ms", "7"));
    assertThat(String.valueOf(config.get("bootstrap.servers"))).contains("127.0.0.1:9092");
  }

  @Test
  void defaultsAreTheDocumentedConstants() {
    KafkaPublisherOptions options = KafkaPublisherOptions.defaults();

    assertThat(options.bootstrapServers())
        .isEqualTo(KafkaPublisherOptions.DEFAULT_BOOTSTRAP_SERVERS);
    assertThat(options.topicPrefix()).isEmpty();
    assertThat(options.clientId()).isEqualTo(KafkaPublisherOptions.DEFAULT_CLIENT_ID);
    assertThat(options.metadataTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.closeTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.producerProperties()).isEmpty();
  }

  @Test
  void defaultTopicIsTheAggregateTypeAfterThePrefix() {
    assertThat(KafkaPublisherOptions.defaults().topicFor(message("Order"))).isEqualTo("Order");
    assertThat(
            KafkaPublisherOptions.builder().topicPrefix("prod.").build().topicFor(message("Order")))
        .isEqualTo("prod.Order");
  }

  @Test
  void customRouterDecidesTheTopicAndThePrefixStillApplies() {
    KafkaPublisherOptions options =
        KafkaPublisherOptions.builder()
            .topicPrefix("prod.")
            .topicRouter(m -> m.aggregateType() + "." + m.eventType())
            .build();

    assertThat(options.topicFor(message("Order"))).isEqualTo("prod.Order.OrderPlaced");
  }

  @Test
  void routerReturningNoTopicIsRejectedNamingTheMessage() {
    KafkaPublisherOptions options = KafkaPublisherOptions.builder().topicRouter(m -> " ").build();
    OutboxMessage message = message("Order");

    assertThatThrownBy(() -> options.topicFor(message))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topicRouter returned a blank topic")
        .hasMessageContaining(message.id().toString());
  }

  @Test
  void settersNameTheFieldAndTheBadValue() {
    KafkaPublisherOptions.Builder builder = KafkaPublisherOptions.builder();

    assertThatThrownBy(() -> builder.bootstrapServers(" "))
        .hasMessage("bootstrapServers must not be blank, but was \" \"");
    assertThatThrownBy(() -> builder.topicPrefix("bad prefix/"))
        .hasMessage("topicPrefix must match [a-zA-Z0-9._-]{0,200}, but was \"bad prefix/\"");
    assertThatThrownBy(() -> builder.clientId(null))
        .hasMessage("clientId must not be blank, but was null");
    assertThatThrownBy(() -> builder.metadataTimeout(Duration.ofMillis(-1)))
        .hasMessage("metadataTimeout must be between 1 ms and 10 minutes, but was PT-0.001S");
    assertThatThrownBy(() -> builder.closeTimeout(Duration.ofHours(1)))
        .hasMessage("closeTimeout must be between 1 ms and 10 minutes, but was PT1H");
  }

  @Test
  void producerPropertiesThatWouldWeakenDeliveryAreRejected() {
    KafkaPublisherOptions.Builder builder = KafkaPublisherOptions.builder();

    assertThatThrownBy(() -> builder.producerProperty("acks", "1"))
        .hasMessage("producer property acks must be all, but was 1");
    assertThatThrownBy(() -> builder.producerProperty("enable.idempotence", "false"))
        .hasMessage("producer property enable.idempotence must be true, but was false");
    assertThatThrownBy(() -> builder.producerProperty("max.in.flight.requests.per.connection", "6"))
        .hasMessageContaining("must be between 1 and 5 to keep order, but was 6");
    assertThatThrownBy(() -> builder.producerProperty("transactional.id", "tx"))
        .hasMessageContaining("transactional.id is fixed by the Kafka adapter");
    assertThatThrownBy(() -> builder.producerProperty("value.serializer", "x.Y"))
        .hasMessageContaining("value.serializer is fixed by the Kafka adapter");
    assertThat(builder.producerProperty("acks", "all").build().producerProperties())
        .containsEntry("acks", "all");
  }

  @Test
  void aLingerThatTheDeliveryTimeoutDoesNotCoverFailsAtBuildNotAtTheFirstPublish() {
    KafkaPublisherOptions.Builder builder =
        KafkaPublisherOptions.builder().producerProperty("linger.ms", "25000");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "producer property delivery.timeout.ms (30000) must be at least linger.ms (25000)"
                + " + request.timeout.ms (10000)");
    builder.producerProperty("delivery.timeout.ms", "35000").build();
    assertThatThrownBy(
            () -> KafkaPublisherOptions.builder().producerProperty("linger.ms", "soon").build())
        .hasMessage("producer property linger.ms must be a number, but was soon");
  }

  @Test
  void producerPropertiesOwnedByAnOptionNameThatOption() {
    KafkaPublisherOptions.Builder builder = KafkaPublisherOptions.builder();

    assertThatThrownBy(() -> builder.producerProperty("bootstrap.servers", "x:1"))
        .hasMessage("producer property bootstrap.servers is set by the option bootstrapServers");
    assertThatThrownBy(() -> builder.producerProperty("max.block.ms", "1000"))
        .hasMessage("producer property max.block.ms is set by the option metadataTimeout");
  }

  @Test
  void fromPropertiesReadsPrefixedKeysAndIgnoresOthers() {
    Properties properties = new Properties();
    properties.setProperty("outbox.kafka.bootstrap-servers", "k1:9092,k2:9092");
    properties.setProperty("outbox.kafka.topic-prefix", "staging.");
    properties.setProperty("outbox.kafka.client-id", "orders-outbox");
    properties.setProperty("outbox.kafka.metadata-timeout", "PT2S");
    properties.setProperty("outbox.kafka.close-timeout", "1500ms");
    properties.setProperty("outbox.kafka.producer.compression.type", "zstd");
    properties.setProperty("outbox.kafka.producer.linger.ms", "20");
    properties.setProperty("outbox.rabbitmq.host", "elsewhere");
    properties.setProperty("bootstrap.servers", "not-mine:1");

    KafkaPublisherOptions options =
        KafkaPublisherOptions.fromProperties(properties, "outbox.kafka");

    assertThat(options.bootstrapServers()).isEqualTo("k1:9092,k2:9092");
    assertThat(options.topicPrefix()).isEqualTo("staging.");
    assertThat(options.clientId()).isEqualTo("orders-outbox");
    assertThat(options.metadataTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.closeTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(options.producerProperties())
        .contains(entry("compression.type", "zstd"), entry("linger.ms", "20"));
    assertThat(
            KafkaPublisherOptions.fromMap(
                    Map.of(
                        "OUTBOX_KAFKA_BOOTSTRAP_SERVERS", "k1:9092,k2:9092",
                        "OUTBOX_KAFKA_TOPIC_PREFIX", "staging.",
                        "OUTBOX_KAFKA_CLIENT_ID", "orders-outbox",
                        "OUTBOX_KAFKA_METADATA_TIMEOUT", "2s",
                        "OUTBOX_KAFKA_CLOSE_TIMEOUT", "PT1.5S",
                        "OUTBOX_KAFKA_PRODUCER_COMPRESSION_TYPE", "zstd",
                        "OUTBOX_KAFKA_PRODUCER_LINGER_MS", "20"),
                    "OUTBOX_KAFKA_")
                .toString())
        .as("the environment form of the same keys")
        .isEqualTo(options.toString());
  }

  @Test
  void fromMapWithoutKeysGivesTheDefaults() {
    KafkaPublisherOptions options =
        KafkaPublisherOptions.fromMap(Map.of("PATH", "/bin"), "OUTBOX_KAFKA");

    assertThat(options.toString()).isEqualTo(KafkaPublisherOptions.defaults().toString());
  }

  @Test
  void fromMapRejectsAnUnknownKeyNamingItAndTheKnownOnes() {
    assertThatThrownBy(
            () ->
                KafkaPublisherOptions.fromMap(
                    Map.of("outbox.kafka.bootstrap.server", "x:1"), "outbox.kafka"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Unknown Kafka publisher option outbox.kafka.bootstrap.server;")
        .hasMessageContaining("outbox.kafka.bootstrap-servers");
  }

  @Test
  void fromMapNamesTheKeyOfABadValue() {
    assertThatThrownBy(
            () ->
                KafkaPublisherOptions.fromMap(
                    Map.of("outbox.kafka.metadata-timeout", "soon"), "outbox.kafka"))
        .hasMessageStartingWith("outbox.kafka.metadata-timeout: expected a duration")
        .hasMessageContaining("soon");
  }

  @Test
  void theReadmeListsExactlyTheKeys() {
    DocumentedKeys.assertListed(
        Path.of("README.md"), "outbox.kafka.", KafkaPublisherOptions.keys("outbox.kafka"));
  }

  @Test
  void secretsNeverAppearInToString() {
    KafkaPublisherOptions options =
        KafkaPublisherOptions.builder()
            .producerProperty("security.protocol", "SASL_SSL")
            .producerProperty("sasl.jaas.config", JAAS)
            .producerProperty("ssl.keystore.password", "hunter2-keystore")
            .producerProperty("ssl.key.password", "hunter2-key")
            .producerProperty("sasl.oauthbearer.client.credentials.client.secret", "hunter2-oauth")
            .producerProperty("sasl.login.token", "hunter2-token")
            .build();

    String text = options.toString();

    assertThat(text).doesNotContain("hunter2");
    assertThat(text)
        .contains("security.protocol=SASL_SSL")
        .contains("sasl.jaas.config=****")
        .contains("ssl.keystore.password=****");
    assertThat(options.producerProperties()).containsEntry("sasl.jaas.config", JAAS);
  }

  @Test
  void secretsReadFromPropertiesAreMaskedToo() {
    Properties properties = new Properties();
    properties.setProperty("k.producer.sasl.jaas.config", JAAS);

    assertThat(KafkaPublisherOptions.fromProperties(properties, "k.").toString())
        .doesNotContain("hunter2")
        .contains("sasl.jaas.config=****");
  }

  @Test
  void toBuilderKeepsEveryValue() {
    KafkaPublisherOptions options =
        KafkaPublisherOptions.builder()
            .bootstrapServers("k:1")
            .topicPrefix("p.")
            .clientId("c")
            .metadataTimeout(Duration.ofSeconds(1))
            .closeTimeout(Duration.ofSeconds(2))
            .producerProperty("linger.ms", "1")
            .build();

    KafkaPublisherOptions copy = options.toBuilder().build();

    assertThat(copy.toString()).isEqualTo(options.toString());
    assertThat(copy.topicRouter()).isSameAs(options.topicRouter());
    assertThat(options.toBuilder().clientId("d").build().clientId()).isEqualTo("d");
    assertThat(options.clientId()).isEqualTo("c");
  }

  static OutboxMessage message(String aggregateType) {
    return new OutboxMessage(
        UUID.randomUUID(),
        1,
        aggregateType,
        "o-1",
        "OrderPlaced",
        OutboxMessage.JSON,
        "{}",
        Map.of(),
        Instant.parse("2025-01-31T10:15:30.123456Z"),
        Instant.now(),
        0);
  }
}
