package dev.outbox.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TestMessages;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageMapperTest {

  private final OutboxMessage message =
      TestMessages.message(
          "orders", "order-7", "{\"a\":1}", Map.of("correlation-id", "c-7", "tenant", "acme"));

  @Test
  void outboxFieldsGoToTheNativeProperties() {
    ServiceBusMessage mapped = new MessageMapper(false, "correlation-id").map(message);

    assertThat(mapped.getMessageId()).isEqualTo(message.id().toString());
    assertThat(mapped.getSubject()).isEqualTo(message.eventType());
    assertThat(mapped.getContentType()).isEqualTo("application/json");
    assertThat(mapped.getCorrelationId()).isEqualTo("c-7");
    assertThat(mapped.getPartitionKey()).isEqualTo("order-7");
    assertThat(mapped.getSessionId()).isNull();
    assertThat(mapped.getBody().toBytes()).isEqualTo(message.payloadBytes());
  }

  @Test
  void sessionEnabledSetsTheSessionIdInsteadOfThePartitionKey() {
    ServiceBusMessage mapped = new MessageMapper(true, "correlation-id").map(message);

    assertThat(mapped.getSessionId()).isEqualTo("order-7");
    assertThat(mapped.getPartitionKey()).isNull();
  }

  @Test
  void everyWireHeaderIsAnApplicationProperty() {
    ServiceBusMessage mapped = new MessageMapper(false, "correlation-id").map(message);

    assertThat(mapped.getApplicationProperties())
        .containsAllEntriesOf(WireHeaders.of(message))
        .containsEntry("tenant", "acme")
        .containsEntry(WireHeaders.AGGREGATE_TYPE, "orders");
  }

  @Test
  void noCorrelationHeaderLeavesCorrelationIdEmpty() {
    ServiceBusMessage mapped = new MessageMapper(false, "x-other").map(message);

    assertThat(mapped.getCorrelationId()).isNull();
  }
}
