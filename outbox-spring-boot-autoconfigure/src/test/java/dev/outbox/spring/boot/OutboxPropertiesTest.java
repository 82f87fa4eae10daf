package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.env.MockEnvironment;

/** The {@code outbox.*} properties as the integration reads them from Spring's environment. */
class OutboxPropertiesTest {

  @Test
  void theIntegrationsOwnKeysStayOutOfTheBindersAndAreReadInBothForms() {
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("outbox.poll-interval", "1s")
            .withProperty("outbox.broker", "kafka")
            .withProperty("OUTBOX_HEALTH_MAX_LAG", "5m")
            .withProperty("outbox.kafka.client-id", "orders");

    OutboxProperties properties = OutboxProperties.of(environment);
    properties.checkKeys();

    assertThat(properties.forBinders())
        .containsOnlyKeys("outbox.poll-interval", "outbox.kafka.client-id");
    assertThat(properties.get("broker")).isEqualTo("kafka");
    assertThat(properties.get("health.max-lag")).isEqualTo("5m");
  }

  @Test
  void aKeyGivenInBothFormsIsReadOnceFromTheSourceSpringRanksFirst() {
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("outbox.batch-size", "5")
            .withProperty("outbox.kafka.bootstrap-servers", "yml:9092");
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "systemEnvironment",
                Map.of(
                    "OUTBOX_BATCH_SIZE",
                    "7",
                    "OUTBOX_KAFKA_BOOTSTRAP_SERVERS",
                    "kubernetes:9092")));

    Map<String, String> bound = OutboxProperties.of(environment).forBinders();

    assertThat(bound)
        .containsOnly(
            Map.entry("OUTBOX_BATCH_SIZE", "7"),
            Map.entry("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", "kubernetes:9092"));
    assertThat(OutboxOptions.fromMap(bound, "outbox").batchSize()).isEqualTo(7);
  }

  @Test
  void anUnknownKeyOfTheIntegrationIsNamedWithTheKnownOnes() {
    OutboxProperties properties =
        OutboxProperties.of(new MockEnvironment().withProperty("outbox.health.max-lagg", "5m"));

    assertThatThrownBy(properties::checkKeys)
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.health.max-lagg")
        .satisfies(
            e ->
                assertThat(((OutboxConfigurationException) e).action())
                    .contains("outbox.health.max-lag")
                    .contains("outbox.flyway.enabled"));
  }

  @Test
  void anUnknownKeyInEnvironmentFormIsNamedToo() {
    OutboxProperties properties =
        OutboxProperties.of(new MockEnvironment().withProperty("OUTBOX_FLYWAY_ENABLE", "false"));

    assertThatThrownBy(properties::checkKeys).hasMessageContaining("OUTBOX_FLYWAY_ENABLE");
  }

  @Test
  void anUnknownOptionListsEveryAcceptedKeyAndSuggestsTheCloseOne() {
    OutboxProperties properties =
        OutboxProperties.of(new MockEnvironment().withProperty("outbox.poll-intervall", "1s"));

    assertThatThrownBy(properties::checkKeys)
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage(
            "Unknown outbox property outbox.poll-intervall; did you mean outbox.poll-interval?")
        .satisfies(
            e ->
                assertThat(((OutboxConfigurationException) e).action())
                    .contains("outbox.batch-size", "outbox.lease-on-write")
                    .contains("outbox.enabled", "outbox.broker", "outbox.health.max-lag")
                    .contains("outbox.metrics.latency-histogram", "outbox.flyway.enabled")
                    .contains("outbox.kafka.*", "outbox.rabbitmq.*", "outbox.nats.*")
                    .contains("outbox.servicebus.*"));
  }

  @Test
  void anUnknownKeyInEnvironmentFormIsMatchedToTheDottedOne() {
    OutboxProperties properties =
        OutboxProperties.of(new MockEnvironment().withProperty("OUTBOX_BATCH_SIZ", "5"));

    assertThatThrownBy(properties::checkKeys)
        .hasMessageContaining("OUTBOX_BATCH_SIZ; did you mean outbox.batch-size?");
  }

  @Test
  void aKeySharingItsWordsWithKnownOnesSuggestsThem() {
    assertThatThrownBy(
            OutboxProperties.of(new MockEnvironment().withProperty("outbox.max-lag", "5m"))
                ::checkKeys)
        .hasMessageEndingWith("did you mean outbox.health.max-lag?");
    assertThatThrownBy(
            OutboxProperties.of(new MockEnvironment().withProperty("outbox.retention-days", "7"))
                ::checkKeys)
        .hasMessageEndingWith("did you mean outbox.retention?");
  }

  @Test
  void aMisspelledAdapterSectionSuggestsTheAdaptersKey() {
    assertThatThrownBy(
            OutboxProperties.of(
                    new MockEnvironment().withProperty("outbox.kafak.bootstrap-servers", "k:9092"))
                ::checkKeys)
        .hasMessageEndingWith("did you mean outbox.kafka.bootstrap-servers?");
    assertThatThrownBy(
            OutboxProperties.of(
                    new MockEnvironment()
                        .withProperty("outbox.azure-servicebus.connection-string", "secret"))
                ::checkKeys)
        .hasMessageEndingWith("did you mean outbox.servicebus.connection-string?")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
  }

  @Test
  void aKeyFarFromEveryKnownOneSuggestsNothing() {
    assertThatThrownBy(
            OutboxProperties.of(new MockEnvironment().withProperty("outbox.colour", "blue"))
                ::checkKeys)
        .hasMessage("Unknown outbox property outbox.colour.");
  }

  @Test
  void theAdaptersKeysAndTheOptionsPassTheCheck() {
    OutboxProperties properties =
        OutboxProperties.of(
            new MockEnvironment()
                .withProperty("outbox.batch-size", "5")
                .withProperty("OUTBOX_POLL_INTERVAL", "1s")
                .withProperty("outbox.kafka.whatever-the-adapter-checks", "x")
                .withProperty("outbox.flyway.enabled", "false"));

    properties.checkKeys();

    assertThat(properties.forBinders())
        .containsOnlyKeys(
            "OUTBOX_POLL_INTERVAL",
            "outbox.batch-size",
            "outbox.kafka.whatever-the-adapter-checks");
  }
}
