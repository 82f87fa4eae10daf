package dev.outbox.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A Kafka Connect transformation that runs after Debezium's outbox event router and gives each
 * record the wire headers of the Kafka adapter: {@link WireHeaders#of(OutboxMessage)} (message id,
 * event type, aggregate type and id, seq, epoch, previous seq, occurred-at, content type, then
 * every row header in name order, reserved names left out), and occurred-at as the record's
 * timestamp. CDC mode makes no dead letters, so a message's previous seq is always {@code seq - 1}.
 *
 * <p>It reads the row's columns that the router placed as headers under their column names ({@code
 * id}, which the router always adds, and {@code aggregate_type}, {@code aggregate_id}, {@code seq},
 * {@code event_type}, {@code content_type}, {@code occurred_at}, {@code headers}, {@code epoch};
 * see {@link OutboxConnectorConfig}) and replaces them. The router alone cannot split the JSON
 * {@code headers} column into one header per entry, nor take a {@code timestamptz} column as the
 * timestamp.
 *
 * <p>A record with none of those headers (a heartbeat, another table) passes unchanged; one with
 * only some of them fails with a {@link DataException} naming the missing ones.
 *
 * @param <R> the record type
 */
public final class OutboxWireHeaders<R extends ConnectRecord<R>> implements Transformation<R> {

  /** The header holding the message's seq: {@link WireHeaders#SEQ}, as every adapter sends it. */
  public static final String SEQ = WireHeaders.SEQ;

  /** The columns the router is to place as headers, under these names, for this transformation. */
  public static final List<String> COLUMNS =
      List.of(
          "aggregate_type",
          "aggregate_id",
          "seq",
          "event_type",
          "content_type",
          "occurred_at",
          "headers",
          "epoch");

  private static final String ID = "id";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> HEADER_MAP = new TypeReference<>() {};

  @Override
  public R apply(R record) {
    Headers in = record.headers();
    List<String> missing = new ArrayList<>();
    for (String column : allColumns()) {
      if (in.lastWithName(column) == null || in.lastWithName(column).value() == null) {
        missing.add(column);
      }
    }
    if (missing.size() == COLUMNS.size() + 1) {
      return record;
    }
    if (!missing.isEmpty()) {
      throw new DataException(
          "Record for topic "
              + record.topic()
              + " lacks the outbox columns "
              + missing
              + " as headers: place them with the router's table.fields.additional.placement"
              + " (column:header:column), as OutboxConnectorConfig does");
    }
    OutboxMessage message = message(in, record.value());
    Headers out = new ConnectHeaders();
    WireHeaders.of(message).forEach(out::addString);
    for (Header header : in) {
      if (!header.key().equals(ID) && !COLUMNS.contains(header.key())) {
        out.add(header);
      }
    }
    return record.newRecord(
        record.topic(),
        record.kafkaPartition(),
        record.keySchema(),
        record.key(),
        record.valueSchema(),
        record.value(),
        message.occurredAt().toEpochMilli(),
        out);
  }

  private static List<String> allColumns() {
    List<String> columns = new ArrayList<>(COLUMNS.size() + 1);
    columns.add(ID);
    columns.addAll(COLUMNS);
    return columns;
  }

  private static OutboxMessage message(Headers headers, Object value) {
    Instant occurredAt = instant(headers.lastWithName("occurred_at").value());
    long seq = Long.parseLong(text(headers, "seq"));
    return new OutboxMessage(
        UUID.fromString(text(headers, ID)),
        seq,
        text(headers, "aggregate_type"),
        text(headers, "aggregate_id"),
        text(headers, "event_type"),
        text(headers, "content_type"),
        value instanceof String payload ? payload : "",
        rowHeaders(text(headers, "headers")),
        occurredAt,
        occurredAt,
        0,
        Long.parseLong(text(headers, "epoch")),
        // CDC mode makes no dead letters: every seq is published, the one before included.
        seq - 1);
  }

  private static String text(Headers headers, String name) {
    return headers.lastWithName(name).value().toString();
  }

  /** Debezium sends timestamptz as ISO text (ZonedTimestamp), or as epoch micros if converted. */
  private static Instant instant(Object value) {
    if (value instanceof Number micros) {
      return Instant.EPOCH.plus(micros.longValue(), ChronoUnit.MICROS);
    }
    try {
      return OffsetDateTime.parse(value.toString()).toInstant();
    } catch (DateTimeParseException e) {
      throw new DataException("occurred_at is not a timestamp with time zone: " + value, e);
    }
  }

  private static Map<String, String> rowHeaders(String json) {
    try {
      return JSON.readValue(json, HEADER_MAP);
    } catch (JsonProcessingException e) {
      throw new DataException(
          "The headers column is not a JSON object of strings: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public void configure(Map<String, ?> configs) {
    // nothing to configure
  }

  @Override
  public void close() {
    // nothing to release
  }
}
