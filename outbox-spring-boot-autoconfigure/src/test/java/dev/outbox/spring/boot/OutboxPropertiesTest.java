package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
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
