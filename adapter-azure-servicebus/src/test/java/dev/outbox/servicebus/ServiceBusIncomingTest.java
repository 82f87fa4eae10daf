package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusMessage;
import dev.outbox.IncomingMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.servicebus.internal.MessageMapper;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The SDK's {@code ServiceBusReceivedMessage} has no public constructor: {@link
 * ServiceBusIncoming#of} on a real one is checked by the contract ITs; these tests check what it
 * reads, from the parts of a message as the publisher's mapper sends it.
 */
class ServiceBusIncomingTest {

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
    ServiceBusMessage sent = new MessageMapper(false, "correlation-id").map(MESSAGE);

    IncomingMessage incoming = read(sent.getApplicationProperties(), sent);

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
  void idEventTypeAndContentTypeComeFromTheNativeSlotsWhenTheirPropertiesAreMissing() {
    IncomingMessage incoming =
        ServiceBusIncoming.read(Map.of(), "OrderPlaced", "application/json", null, "sb-id-1");

    assertThat(incoming.id()).isEqualTo("sb-id-1");
    assertThat(incoming.eventType()).isEqualTo("OrderPlaced");
    assertThat(incoming.header(WireHeaders.CONTENT_TYPE)).isEqualTo("application/json");
    assertThat(incoming.hasSeq()).isFalse();
    assertThat(incoming.payload()).isEmpty();
  }

  @Test
  void numbersBytesAndTimestampsOfOtherProducersAreReadAsText() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(WireHeaders.AGGREGATE_TYPE, "Order".getBytes(StandardCharsets.UTF_8));
    properties.put(WireHeaders.AGGREGATE_ID, "order-42");
    properties.put(WireHeaders.SEQ, 9L);
    properties.put(WireHeaders.EPOCH, 3);
    properties.put(WireHeaders.OCCURRED_AT, Date.from(Instant.parse("2025-01-31T10:15:30Z")));

    IncomingMessage incoming = ServiceBusIncoming.read(properties, null, null, null, "sb-id-1");

    assertThat(incoming.aggregateType()).isEqualTo("Order");
    assertThat(incoming.seq()).isEqualTo(9);
    assertThat(incoming.epoch()).isEqualTo(3);
    assertThat(incoming.prevSeq()).isEqualTo(8);
    assertThat(incoming.header(WireHeaders.OCCURRED_AT)).isEqualTo("2025-01-31T10:15:30Z");
  }

  @Test
  void malformedOutboxPropertyIsRefusedNamingTheHeaderAndItsValue() {
    ServiceBusMessage sent = new MessageMapper(false, "correlation-id").map(MESSAGE);
    Map<String, Object> properties = new LinkedHashMap<>(sent.getApplicationProperties());
    properties.put(WireHeaders.PREV_SEQ, "9");

    assertThatThrownBy(() -> read(properties, sent))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(WireHeaders.PREV_SEQ)
        .hasMessageContaining("not below")
        .hasMessageContaining(MESSAGE.id().toString());
  }

  @Test
  void nullMessageIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> ServiceBusIncoming.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("message");
  }

  private static IncomingMessage read(Map<String, Object> properties, ServiceBusMessage sent) {
    return ServiceBusIncoming.read(
        properties,
        sent.getSubject(),
        sent.getContentType(),
        sent.getBody().toBytes(),
        sent.getMessageId());
  }
}
