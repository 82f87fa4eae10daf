package dev.outbox.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutgoingTest {

  @Test
  void aBodyOverTheBrokersMaxMessageSizeFailsRetryablyAsTheMessagesFaultBeforeItIsSent() {
    Outgoing outgoing = prepare("{\"note\":\"" + "x".repeat(100) + "\"}");

    Outgoing limited = outgoing.limitedTo(50, "orders");

    assertThat(limited.failure()).isNotNull();
    assertThat(limited.failure().isBrokerFault()).isFalse();
    assertThat(limited.failure().isRetryable()).isTrue();
    assertThat(limited.failure())
        .hasMessageContaining("of 111 bytes")
        .hasMessageContaining("max_message_size of 50 bytes");
  }

  @Test
  void aBodyWithinTheLimitIsSentAsItIs() {
    Outgoing outgoing = prepare("{}");

    assertThat(outgoing.limitedTo(2, "orders")).isSameAs(outgoing);
  }

  private static Outgoing prepare(String payload) {
    Instant now = Instant.now();
    OutboxMessage message =
        new OutboxMessage(
            UUID.randomUUID(),
            1,
            "order",
            "o-1",
            "order.placed",
            "application/json",
            payload,
            Map.of(),
            now,
            now,
            0);
    return Outgoing.prepare(message, "orders", OutboxMessage::eventType, null);
  }
}
