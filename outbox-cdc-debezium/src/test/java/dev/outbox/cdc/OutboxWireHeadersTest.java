package dev.outbox.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** The transformation's headers equal the Kafka adapter's, from what the router placed. */
class OutboxWireHeadersTest {

  private static final UUID ID = UUID.fromString("3b0c4f9e-2d7a-4c11-9f0e-5a1b2c3d4e5f");
  private final OutboxWireHeaders<SourceRecord> transform = new OutboxWireHeaders<>();

  private static ConnectHeaders routed(String headersJson) {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("id", ID.toString());
    headers.addString("aggregate_type", "Order");
    headers.addString("aggregate_id", "o-1");
    headers.addLong("seq", 7);
    headers.addString("event_type", "order.placed");
    headers.addString("content_type", "application/json");
    headers.addString("occurred_at", "2026-11-25T10:15:30.120000Z");
    headers.addString("headers", headersJson);
    headers.addLong("epoch", 1764000000000L);
    return headers;
  }

  private static SourceRecord record(ConnectHeaders headers) {
    return new SourceRecord(
        Map.of(),
        Map.of(),
        "Order",
        null,
        Schema.STRING_SCHEMA,
        "o-1",
        Schema.STRING_SCHEMA,
        "{\"total\":1}",
        99L,
        headers);
  }

  @Test
  void theHeadersAreTheKafkaAdaptersWithSeqEpochAndPreviousSeqAndTheTimestampIsWhenItOccurred() {
    SourceRecord out =
        transform.apply(
            record(routed("{\"tenant\":\"acme\",\"outbox-message-id\":\"forged\",\"a\":\"1\"}")));

    OutboxMessage message =
        new OutboxMessage(
            ID,
            7,
            "Order",
            "o-1",
            "order.placed",
            "application/json",
            "{\"total\":1}",
            Map.of("tenant", "acme", "outbox-message-id", "forged", "a", "1"),
            Instant.parse("2026-11-25T10:15:30.12Z"),
            Instant.parse("2026-11-25T10:15:30.12Z"),
            0,
            1764000000000L,
            6);
    List<String> expected = new ArrayList<>();
    WireHeaders.of(message).forEach((name, value) -> expected.add(name + '=' + value));
    assertThat(expected)
        .contains(
            OutboxWireHeaders.SEQ + "=7",
            WireHeaders.EPOCH + "=1764000000000",
            WireHeaders.PREV_SEQ + "=6");
    assertThat(texts(out)).isEqualTo(expected);
    assertThat(out.timestamp()).isEqualTo(Instant.parse("2026-11-25T10:15:30.12Z").toEpochMilli());
    assertThat(out.key()).isEqualTo("o-1");
    assertThat(out.value()).isEqualTo("{\"total\":1}");
  }

  @Test
  void aRecordWithNoneOfTheColumnsPassesUnchanged() {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("other", "x");
    SourceRecord heartbeat = record(headers);

    assertThat(transform.apply(heartbeat)).isSameAs(heartbeat);
  }

  @Test
  void aRecordWithOnlySomeColumnsFailsNamingTheMissingOnes() {
    ConnectHeaders headers = routed("{}");
    headers.remove("seq");
    headers.remove("headers");

    assertThatThrownBy(() -> transform.apply(record(headers)))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("lacks the outbox columns [seq, headers]")
        .hasMessageContaining("table.fields.additional.placement");
  }

  @Test
  void aHeadersColumnThatIsNoJsonObjectFails() {
    assertThatThrownBy(() -> transform.apply(record(routed("[1, 2]"))))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("The headers column is not a JSON object of strings");
  }

  private static List<String> texts(SourceRecord record) {
    List<String> texts = new ArrayList<>();
    for (Header header : record.headers()) {
      texts.add(header.key() + '=' + header.value());
    }
    return texts;
  }
}
