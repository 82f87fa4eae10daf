package dev.outbox.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.DeadLetter;
import java.io.UncheckedIOException;
import java.time.Instant;

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
    return MAPPER.valueToTree(letter.summary());
  }

  /** A dead letter with everything, as {@code show} prints it. */
  static ObjectNode full(DeadLetter letter) {
    return MAPPER.valueToTree(letter.details());
  }
}
