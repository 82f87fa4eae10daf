package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectionSettingsTest {

  @Test
  void printedOnItsOwnTheSettingsStillMaskTheConnectionString() {
    ConnectionSettings settings =
        ConnectionSettings.DEFAULTS.withConnectionString(
            "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=send;"
                + "SharedAccessKey=c2VjcmV0LWtleS12YWx1ZQ==");

    assertThat(settings.toString())
        .doesNotContain("c2VjcmV0LWtleS12YWx1ZQ==", "SharedAccessKey", "Endpoint")
        .contains("connectionString=****");
  }
}
