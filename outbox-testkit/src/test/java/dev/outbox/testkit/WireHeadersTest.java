package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link WireHeaders}, with the messages the test kit makes. */
class WireHeadersTest {

  @Test
  void standardHeadersComeFirstThenRowHeadersByName() {
    OutboxMessage message =
        TestMessages.message("orders", "order-1", "{}", Map.of("b-second", "2", "a-first", "1"));

    assertThat(WireHeaders.of(message))
        .containsExactly(
            Map.entry(WireHeaders.MESSAGE_ID, message.id().toString()),
            Map.entry(WireHeaders.EVENT_TYPE, TestMessages.EVENT_TYPE),
            Map.entry(WireHeaders.AGGREGATE_TYPE, "orders"),
            Map.entry(WireHeaders.AGGREGATE_ID, "order-1"),
            Map.entry(WireHeaders.SEQ, Long.toString(message.seq())),
            Map.entry(WireHeaders.EPOCH, Long.toString(message.epoch())),
            Map.entry(WireHeaders.PREV_SEQ, Long.toString(message.prevSeq())),
            Map.entry(WireHeaders.OCCURRED_AT, message.occurredAt().toString()),
            Map.entry(WireHeaders.CONTENT_TYPE, OutboxMessage.JSON),
            Map.entry("a-first", "1"),
            Map.entry("b-second", "2"));
  }

  @Test
  void rowHeadersWithAReservedNameInAnyCaseAreLeftOut() {
    OutboxMessage message =
        TestMessages.message(
            "orders",
            "order-1",
            "{}",
            Map.of(
                "Outbox-Message-Id",
                "forged",
                "CONTENT-TYPE",
                "text/plain",
                "OUTBOX-SEQ",
                "0",
                "Outbox-Epoch",
                "1",
                "outbox-PREV-seq",
                "0",
                "tenant",
                "acme"));

    Map<String, String> headers = WireHeaders.of(message);
    assertThat(headers).hasSize(10).containsEntry("tenant", "acme");
    assertThat(headers.get(WireHeaders.MESSAGE_ID)).isEqualTo(message.id().toString());
    assertThat(headers.get(WireHeaders.SEQ)).isEqualTo(Long.toString(message.seq()));
    assertThat(headers.get(WireHeaders.EPOCH)).isEqualTo(Long.toString(message.epoch()));
    assertThat(headers)
        .doesNotContainKeys(
            "Outbox-Message-Id", "CONTENT-TYPE", "OUTBOX-SEQ", "Outbox-Epoch", "outbox-PREV-seq");
  }
}
