package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.nats.internal.WireMessages;
import dev.outbox.spi.WireHeaders;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NatsIncomingTest {

  private static final OutboxMessage MESSAGE =
      new OutboxMessage(
              UUID.randomUUID(),
              9,
              "Order",
              "order-42",
              "OrderPlaced",
              OutboxMessage.JSON,
              "{\"city\":\"Zürich\"}",
              Map.of("correlation-id", "c-1"),
              Instant.parse("2025-01-31T10:15:30.123456Z"),
              Instant.now(),
              0)
          .inStream(1_735_689_600_000L, 6);

  @Test
  void messageAsThePublisherSendsItReadsBackWithItsStreamPositionAndPayload() {
    Headers headers = sentHeaders();
    headers.add("Nats-Msg-Id", MESSAGE.id().toString());

    IncomingMessage incoming = NatsIncoming.of(message(headers, MESSAGE.payloadBytes()));

    assertThat(incoming.id()).isEqualTo(MESSAGE.id().toString());
    assertThat(incoming.eventType()).isEqualTo("OrderPlaced");
    assertThat(incoming.aggregateType()).isEqualTo("Order");
    assertThat(incoming.aggregateId()).isEqualTo("order-42");
    assertThat(incoming.seq()).isEqualTo(9);
    assertThat(incoming.epoch()).isEqualTo(1_735_689_600_000L);
    assertThat(incoming.prevSeq()).isEqualTo(6);
    assertThat(incoming.payload()).isEqualTo(MESSAGE.payloadBytes());
    assertThat(incoming.header("correlation-id")).isEqualTo("c-1");
  }

  @Test
  void idIsNatsMsgIdWhenTheOutboxHeaderIsMissing() {
    Headers headers = new Headers();
    headers.add("Nats-Msg-Id", "order-42-placed");

    IncomingMessage incoming =
        NatsIncoming.of(message(headers, "{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(incoming.id()).isEqualTo("order-42-placed");
    assertThat(incoming.hasSeq()).isFalse();
  }

  @Test
  void lastValueOfAHeaderWins() {
    Headers headers = sentHeaders();
    headers.add(WireHeaders.SEQ, "10");

    assertThat(headers.get(WireHeaders.SEQ)).containsExactly("9", "10");
    assertThat(NatsIncoming.of(message(headers, null)).seq()).isEqualTo(10);
  }

  @Test
  void malformedOutboxHeaderIsRefusedNamingTheHeaderAndItsValue() {
    Headers headers = sentHeaders();
    headers.put(WireHeaders.SEQ, "nine");

    assertThatThrownBy(() -> NatsIncoming.of(message(headers, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(WireHeaders.SEQ)
        .hasMessageContaining("'nine'")
        .hasMessageContaining(MESSAGE.id().toString());
  }

  @Test
  void messageWithoutHeadersIsRefusedAsHavingNoId() {
    Message bare = NatsMessage.builder().subject("outbox.Order").data("{}").build();

    assertThatThrownBy(() -> NatsIncoming.of(bare))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no id")
        .hasMessageContaining(WireHeaders.MESSAGE_ID);
  }

  @Test
  void nullMessageIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> NatsIncoming.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
  }

  /** A mutable copy of the headers the publisher sends. */
  private static Headers sentHeaders() {
    Headers headers = new Headers();
    WireMessages.toNats(MESSAGE, "outbox.Order.order-42")
        .getHeaders()
        .forEach((name, values) -> headers.add(name, values));
    return headers;
  }

  private static Message message(Headers headers, byte[] data) {
    return NatsMessage.builder()
        .subject("outbox.Order.order-42")
        .headers(headers)
        .data(data)
        .build();
  }
}
