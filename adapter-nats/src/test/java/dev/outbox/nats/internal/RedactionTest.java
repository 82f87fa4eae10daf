package dev.outbox.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedactionTest {

  @Test
  void aClientMessageNamingServersWithCredentialsKeepsNoSecret() {
    String jnats =
        "Unable to connect to NATS servers: [nats://app:s3cret@127.0.0.1:4222,"
            + " tls://tok3n@nats.example:4443]";

    assertThat(Redaction.text(jnats))
        .isEqualTo(
            "Unable to connect to NATS servers: [nats://****@127.0.0.1:4222,"
                + " tls://****@nats.example:4443]")
        .doesNotContain("s3cret")
        .doesNotContain("tok3n");
  }

  @Test
  void aTextWithoutCredentialsIsLeftAsItIs() {
    assertThat(Redaction.text("Connection refused: nats://127.0.0.1:4222"))
        .isEqualTo("Connection refused: nats://127.0.0.1:4222");
    assertThat(Redaction.text(null)).isNull();
  }
}
