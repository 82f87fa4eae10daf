package dev.outbox.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AmqpUriTest {

  @Test
  void maskHidesThePasswordOfAnyUri() {
    assertThat(AmqpUri.mask("amqp://u:secret@h:5672/v")).isEqualTo("amqp://u:****@h:5672/v");
    assertThat(AmqpUri.mask("amqp://u:se@cret@h/v")).isEqualTo("amqp://u:****@h/v");
    assertThat(AmqpUri.mask("amqp://u@h/v")).isEqualTo("amqp://u@h/v");
    assertThat(AmqpUri.mask("amqp://h:5672/v")).isEqualTo("amqp://h:5672/v");
    assertThat(AmqpUri.mask("not a uri secret")).isEqualTo("****");
  }

  @Test
  void parsedUriPrintsNoPassword() {
    AmqpUri uri = AmqpUri.parse("amqp://u:secret@h/v");
    assertThat(uri.password()).isEqualTo("secret");
    assertThat(uri.toString()).doesNotContain("secret");
  }

  @Test
  void percentEncodedCredentialsAreDecoded() {
    AmqpUri uri = AmqpUri.parse("amqp://us%40er:p%3Aa+ss@h/%2F");
    assertThat(uri.username()).isEqualTo("us@er");
    assertThat(uri.password()).isEqualTo("p:a+ss");
    assertThat(uri.virtualHost()).isEqualTo("/");
  }
}
