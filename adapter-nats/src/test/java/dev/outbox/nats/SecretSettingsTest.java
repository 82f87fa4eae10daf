package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SecretSettingsTest {

  @Test
  void printedOnTheirOwnTheSettingsStillMaskEverySecret() {
    ConnectionSettings connection =
        ConnectionSettings.DEFAULTS
            .withServers(List.of("nats://admin:s3cr3t-pw@host:4222"))
            .withTruststore("/etc/trust.jks", "trust-pass");
    AuthSettings user = AuthSettings.DEFAULTS.withUserPassword("admin-user", "s3cr3t-pw");
    AuthSettings token = AuthSettings.DEFAULTS.withToken("tok3n-value");
    AuthSettings file = AuthSettings.DEFAULTS.withCredentialsFile("/secrets/app.creds");

    for (Object settings : List.of(connection, user, token, file)) {
      assertThat(settings.toString())
          .doesNotContain("s3cr3t-pw", "tok3n-value", "trust-pass", "app.creds", "admin");
    }
    assertThat(connection.toString()).contains("nats://****@host:4222", "truststorePassword=****");
    assertThat(user.toString()).contains("user-password(****)");
  }
}
