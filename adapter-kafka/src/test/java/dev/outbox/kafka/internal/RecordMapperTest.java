package dev.outbox.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class RecordMapperTest {

  @Test
  void recordIsKeyedByAggregateIdWithPayloadAndWireHeaders() {
    Map<String, String> rowHeaders = new LinkedHashMap<>();
    rowHeaders.put("traceparent", "00-abc-def-01");
    rowHeaders.put(WireHeaders.MESSAGE_ID, "forged");
    OutboxMessage message =
        new OutboxMessage(
            UUID.randomUUID(),
            7,
            "Order",
            "order-42",
            "OrderPlaced",
            OutboxMessage.JSON,
            "{\"city\":\"Zürich\"}",
            rowHeaders,
            Instant.parse("2025-01-31T10:15:30.123456Z"),
            Instant.now(),
            0);

    ProducerRecord<String, byte[]> record = RecordMapper.toRecord(message, "prod.Order");

    assertThat(record.topic()).isEqualTo("prod.Order");
    assertThat(record.key()).isEqualTo("order-42");
    assertThat(record.value()).isEqualTo(message.payloadBytes());
    assertThat(record.partition()).isNull();
    assertThat(record.timestamp()).isNull();
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    assertThat(headers).isEqualTo(WireHeaders.of(message));
    assertThat(headers)
        .containsEntry(WireHeaders.MESSAGE_ID, message.id().toString())
        .containsEntry(WireHeaders.OCCURRED_AT, "2025-01-31T10:15:30.123456Z")
        .containsEntry("traceparent", "00-abc-def-01");
  }
}
