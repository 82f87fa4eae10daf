package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.kafka.internal.RecordMapper;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class KafkaIncomingTest {

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
  void recordAsThePublisherSendsItReadsBackWithItsStreamPositionAndPayload() {
    ProducerRecord<String, byte[]> sent = RecordMapper.toRecord(MESSAGE, "Order");

    IncomingMessage incoming = KafkaIncoming.of(consumed(sent.value(), sent.headers()));

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
  void stringValueIsThePayloadInUtf8AndATombstoneAnEmptyOne() {
    Headers headers = RecordMapper.toRecord(MESSAGE, "Order").headers();

    assertThat(KafkaIncoming.of(consumed("{\"city\":\"Zürich\"}", headers)).payload())
        .isEqualTo(MESSAGE.payloadBytes());
    assertThat(KafkaIncoming.of(consumed(null, headers)).payload()).isEmpty();
  }

  @Test
  void lastHeaderOfANameWins() {
    Headers headers = RecordMapper.toRecord(MESSAGE, "Order").headers();
    headers.add(WireHeaders.SEQ, "10".getBytes(StandardCharsets.UTF_8));

    assertThat(KafkaIncoming.of(consumed(new byte[0], headers)).seq()).isEqualTo(10);
  }

  @Test
  void valueOfAnotherTypeIsRefusedNamingItsClassAndTheDeserializerToUse() {
    Headers headers = RecordMapper.toRecord(MESSAGE, "Order").headers();

    assertThatThrownBy(() -> KafkaIncoming.of(consumed(42L, headers)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Order-0@17")
        .hasMessageContaining("java.lang.Long")
        .hasMessageContaining("ByteArrayDeserializer");
  }

  @Test
  void malformedOutboxHeaderIsRefusedNamingTheHeaderAndItsValue() {
    Headers headers = RecordMapper.toRecord(MESSAGE, "Order").headers();
    headers.add(WireHeaders.EPOCH, "yesterday".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> KafkaIncoming.of(consumed(new byte[0], headers)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(WireHeaders.EPOCH)
        .hasMessageContaining("'yesterday'")
        .hasMessageContaining(MESSAGE.id().toString());
  }

  @Test
  void recordWithoutTheMessageIdHeaderIsRefusedAsKafkaHasNoIdOfItsOwn() {
    Headers headers = new RecordHeaders();
    headers.add(WireHeaders.EVENT_TYPE, "OrderPlaced".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> KafkaIncoming.of(consumed(new byte[0], headers)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(WireHeaders.MESSAGE_ID);
  }

  @Test
  void nullRecordIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> KafkaIncoming.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("record");
  }

  private static ConsumerRecord<String, Object> consumed(Object value, Headers headers) {
    return new ConsumerRecord<>(
        "Order",
        0,
        17,
        System.currentTimeMillis(),
        TimestampType.CREATE_TIME,
        8,
        -1,
        "order-42",
        value,
        headers,
        Optional.empty());
  }
}
