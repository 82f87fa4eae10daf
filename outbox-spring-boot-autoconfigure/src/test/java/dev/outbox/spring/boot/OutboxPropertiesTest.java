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
    properties.checkOwnKeys();

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

    assertThatThrownBy(properties::checkOwnKeys)
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

    assertThatThrownBy(properties::checkOwnKeys).hasMessageContaining("OUTBOX_FLYWAY_ENABLE");
  }
}
