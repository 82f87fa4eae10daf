package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IncomingMessageTest {

  private static final UUID ID = UUID.fromString("0190f1c2-7a8b-7c3d-9e0f-112233445566");

  private static OutboxMessage sent(long seq, long epoch, long prevSeq) {
    Instant at = Instant.parse("2026-11-29T10:00:00Z");
    return new OutboxMessage(
        ID,
        seq,
        "Order",
        "o-1",
        "order.placed",
        OutboxMessage.JSON,
        "{\"total\":1}",
        Map.of("tenant", "acme"),
        at,
        at,
        0,
        epoch,
        prevSeq);
  }

  @Test
  void readsBackWhatTheWireHeadersOfAMessageCarry() {
    OutboxMessage sent = sent(7, 1764400000000L, 4);

    IncomingMessage received =
        IncomingMessage.of(WireHeaders.of(sent), sent.payloadBytes(), "broker-id");

    assertThat(received.id()).isEqualTo(ID.toString());
    assertThat(received.aggregateType()).isEqualTo("Order");
    assertThat(received.aggregateId()).isEqualTo("o-1");
    assertThat(received.eventType()).isEqualTo("order.placed");
    assertThat(received.hasSeq()).isTrue();
    assertThat(received.seq()).isEqualTo(7);
    assertThat(received.epoch()).isEqualTo(1764400000000L);
    assertThat(received.prevSeq()).isEqualTo(4);
    assertThat(received.payloadText()).isEqualTo("{\"total\":1}");
    assertThat(received.header("TENANT")).isEqualTo("acme");
    assertThat(received.toString()).contains("seq=7 (prev 4)").contains("epoch=1764400000000");
  }

  @Test
  void headerNamesAreMatchedIgnoringCaseAndAMissingPreviousSeqIsTheOneBefore() {
    Map<String, String> headers =
        Map.of(
            "Outbox-Message-Id", "m-1",
            "OUTBOX-AGGREGATE-TYPE", "Order",
            "outbox-aggregate-id", "o-1",
            "Outbox-Seq", "3");

    IncomingMessage received = IncomingMessage.of(headers, null, null);

    assertThat(received.seq()).isEqualTo(3);
    assertThat(received.prevSeq()).isEqualTo(2);
    assertThat(received.epoch()).isZero();
    assertThat(received.payload()).isEmpty();
  }

  @Test
  void aMessageOfAnotherProducerIsKnownByTheBrokersIdAlone() {
    IncomingMessage received =
        IncomingMessage.of(
            Map.of("x-custom", "1"), "hello".getBytes(StandardCharsets.UTF_8), "native-42");

    assertThat(received.id()).isEqualTo("native-42");
    assertThat(received.hasSeq()).isFalse();
    assertThat(received.seq()).isZero();
    assertThat(received.aggregateType()).isNull();
    assertThat(received.toString()).contains("no seq");
  }

  @Test
  void aMessageWithoutAnyIdIsRefused() {
    assertThatThrownBy(() -> IncomingMessage.of(Map.of("x", "1"), new byte[0], " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no id")
        .hasMessageContaining(WireHeaders.MESSAGE_ID);
  }

  @Test
  void aSeqThatIsNoPositiveNumberIsRefusedNamingTheHeaderAndTheMessage() {
    Map<String, String> headers = new HashMap<>(WireHeaders.of(sent(7, 1, 6)));
    headers.put(WireHeaders.SEQ, "seven");

    assertThatThrownBy(() -> IncomingMessage.of(headers, new byte[0], null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(ID.toString())
        .hasMessageContaining("outbox-seq = 'seven'")
        .hasMessageContaining("1 or more");
    headers.put(WireHeaders.SEQ, "0");
    assertThatThrownBy(() -> IncomingMessage.of(headers, new byte[0], null))
        .hasMessageContaining("outbox-seq = '0'");
  }

  @Test
  void aSeqWithoutItsAggregateIsRefused() {
    Map<String, String> headers = new HashMap<>(WireHeaders.of(sent(7, 1, 6)));
    headers.remove(WireHeaders.AGGREGATE_ID);

    assertThatThrownBy(() -> IncomingMessage.of(headers, new byte[0], null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not both of outbox-aggregate-type and outbox-aggregate-id");
  }

  @Test
  void aPreviousSeqNotBelowTheSeqIsRefused() {
    Map<String, String> headers = new HashMap<>(WireHeaders.of(sent(7, 1, 6)));
    headers.put(WireHeaders.PREV_SEQ, "7");

    assertThatThrownBy(() -> IncomingMessage.of(headers, new byte[0], null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outbox-prev-seq 7, which is not below its outbox-seq 7");
    headers.put(WireHeaders.PREV_SEQ, "-1");
    assertThatThrownBy(() -> IncomingMessage.of(headers, new byte[0], null))
        .hasMessageContaining("outbox-prev-seq = '-1'");
  }

  @Test
  void anOutboxMessageRefusesAPreviousSeqNotBelowItsSeq() {
    assertThatThrownBy(() -> sent(3, 1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("prevSeq must be >= 0 and < seq, but was 3 with seq 3");
    assertThat(sent(3, 1, 1).toString()).contains("seq=3 (prev 1)");
  }
}
