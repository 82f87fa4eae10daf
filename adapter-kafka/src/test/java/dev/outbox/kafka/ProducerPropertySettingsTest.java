package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProducerPropertySettingsTest {

  @Test
  void printedOnTheirOwnThePropertiesStillMaskSecrets() {
    ProducerPropertySettings settings =
        ProducerPropertySettings.DEFAULTS
            .withProperty("security.protocol", "SASL_SSL")
            .withProperty("ssl.keystore.password", "hunter2-keystore")
            .withProperty("sasl.login.token", "hunter2-token");

    assertThat(settings.toString())
        .doesNotContain("hunter2")
        .contains("security.protocol=SASL_SSL", "ssl.keystore.password=****");
  }
}
