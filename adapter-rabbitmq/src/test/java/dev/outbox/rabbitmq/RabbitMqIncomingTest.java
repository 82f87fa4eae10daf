package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outbox.IncomingMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RabbitMqIncomingTest {

  private static final String ID = UUID.randomUUID().toString();
  private static final byte[] BODY = "{\"city\":\"Zürich\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void deliveryReadsTheOutboxHeadersAsTheBrokerDeliversThemAsLongStrings() {
    Map<String, Object> headers = outboxHeaders();
    headers.put("correlation-id", LongStringHelper.asLongString("c-1"));
    Delivery delivery =
        new Delivery(
            new Envelope(1, false, "orders", "Order.OrderPlaced"), properties(headers), BODY);

    IncomingMessage incoming = RabbitMqIncoming.of(delivery);

    assertThat(incoming.id()).isEqualTo(ID);
    assertThat(incoming.eventType()).isEqualTo("OrderPlaced");
    assertThat(incoming.aggregateType()).isEqualTo("Order");
    assertThat(incoming.aggregateId()).isEqualTo("order-42");
    assertThat(incoming.seq()).isEqualTo(9);
    assertThat(incoming.epoch()).isEqualTo(1_735_689_600_000L);
    assertThat(incoming.prevSeq()).isEqualTo(6);
    assertThat(incoming.payload()).isEqualTo(BODY);
    assertThat(incoming.header("correlation-id")).isEqualTo("c-1");
  }

  @Test
  void numbersBytesAndTimestampsOfOtherProducersAreReadAsText() {
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(WireHeaders.AGGREGATE_TYPE, "Order".getBytes(StandardCharsets.UTF_8));
    headers.put(WireHeaders.AGGREGATE_ID, LongStringHelper.asLongString("order-42"));
    headers.put(WireHeaders.SEQ, 9L);
    headers.put(WireHeaders.PREV_SEQ, 8);
    headers.put(WireHeaders.OCCURRED_AT, Date.from(Instant.parse("2025-01-31T10:15:30Z")));
    headers.put("priority", true);

    IncomingMessage incoming = RabbitMqIncoming.of(properties(headers), BODY);

    assertThat(incoming.aggregateType()).isEqualTo("Order");
    assertThat(incoming.seq()).isEqualTo(9);
    assertThat(incoming.prevSeq()).isEqualTo(8);
    assertThat(incoming.header(WireHeaders.OCCURRED_AT)).isEqualTo("2025-01-31T10:15:30Z");
    assertThat(incoming.header("priority")).isEqualTo("true");
  }

  @Test
  void messageIdEventTypeAndContentTypeComeFromTheNativePropertiesWhenTheirHeadersAreMissing() {
    AMQP.BasicProperties properties =
        new AMQP.BasicProperties.Builder()
            .messageId(ID)
            .type("OrderPlaced")
            .contentType("application/json")
            .build();

    IncomingMessage incoming = RabbitMqIncoming.of(properties, null);

    assertThat(incoming.id()).isEqualTo(ID);
    assertThat(incoming.eventType()).isEqualTo("OrderPlaced");
    assertThat(incoming.header(WireHeaders.CONTENT_TYPE)).isEqualTo("application/json");
    assertThat(incoming.hasSeq()).isFalse();
    assertThat(incoming.payload()).isEmpty();
  }

  @Test
  void malformedOutboxHeaderIsRefusedNamingTheHeaderAndItsValue() {
    Map<String, Object> headers = outboxHeaders();
    headers.put(WireHeaders.PREV_SEQ, LongStringHelper.asLongString("-3"));

    assertThatThrownBy(() -> RabbitMqIncoming.of(properties(headers), BODY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(WireHeaders.PREV_SEQ)
        .hasMessageContaining("'-3'")
        .hasMessageContaining(ID);
  }

  @Test
  void nullInputIsRefusedNamingTheParameter() {
    assertThatThrownBy(() -> RabbitMqIncoming.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delivery");
    assertThatThrownBy(() -> RabbitMqIncoming.of(null, BODY))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("properties");
  }

  /** The headers as the adapter sends them and the broker delivers them: text as LongString. */
  private static Map<String, Object> outboxHeaders() {
    Map<String, Object> headers = new LinkedHashMap<>();
    Map.of(
            WireHeaders.MESSAGE_ID, ID,
            WireHeaders.EVENT_TYPE, "OrderPlaced",
            WireHeaders.AGGREGATE_TYPE, "Order",
            WireHeaders.AGGREGATE_ID, "order-42",
            WireHeaders.SEQ, "9",
            WireHeaders.EPOCH, "1735689600000",
            WireHeaders.PREV_SEQ, "6")
        .forEach((name, value) -> headers.put(name, LongStringHelper.asLongString(value)));
    return headers;
  }

  private static AMQP.BasicProperties properties(Map<String, Object> headers) {
    return new AMQP.BasicProperties.Builder()
        .messageId(ID)
        .type("OrderPlaced")
        .contentType("application/json")
        .headers(headers)
        .build();
  }
}
