package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectionSettingsTest {

  @Test
  void printedOnItsOwnTheSettingsStillMaskThePassword() {
    ConnectionSettings settings =
        ConnectionSettings.DEFAULTS.withUri("amqps://orders:s3cr3t-Pa55@rabbit/prod");

    assertThat(settings.toString())
        .doesNotContain("s3cr3t-Pa55")
        .contains("amqps://orders:****@rabbit:5671", "virtualHost=prod");
  }
}
