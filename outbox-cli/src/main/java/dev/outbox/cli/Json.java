package dev.outbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.DeadLetter;
import dev.outbox.OutboxMessage;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

/** The {@code --json} output: one JSON document per result, field names in camel case. */
final class Json {

  private static final ObjectMapper MAPPER =
      new ObjectMapper().disable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** One line of JSON. */
  static String line(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An instant as ISO-8601 text, or JSON null. */
  static void put(ObjectNode node, String field, Instant instant) {
    if (instant == null) {
      node.putNull(field);
    } else {
      node.put(field, instant.toString());
    }
  }

  /** A dead letter without its payload and headers, as {@code list} prints it. */
  static ObjectNode summary(DeadLetter letter) {
    OutboxMessage message = letter.message();
    ObjectNode node = object();
    node.put("id", message.id().toString());
    node.put("eventType", message.eventType());
    node.put("aggregateType", message.aggregateType());
    node.put("aggregateId", message.aggregateId());
    node.put("seq", message.seq());
    node.put("attempts", message.attempts());
    node.put("lastError", letter.lastError());
    put(node, "deadLetteredAt", letter.deadLetteredAt());
    put(node, "occurredAt", message.occurredAt());
    put(node, "createdAt", message.createdAt());
    return node;
  }

  /** A dead letter with everything, as {@code show} prints it. */
  static ObjectNode full(DeadLetter letter) {
    OutboxMessage message = letter.message();
    ObjectNode node = summary(letter);
    node.put("contentType", message.contentType());
    ObjectNode headers = node.putObject("headers");
    for (Map.Entry<String, String> header : message.headers().entrySet()) {
      headers.put(header.getKey(), header.getValue());
    }
    node.put("payload", message.payload());
    return node;
  }
}
