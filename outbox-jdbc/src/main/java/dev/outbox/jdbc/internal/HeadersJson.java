package dev.outbox.jdbc.internal;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code headers} column: a flat JSON object of string names and values, as CDC mode's
 * transformation and operators read it. Written and read here without a JSON library, since the
 * column holds nothing but strings.
 */
final class HeadersJson {

  private HeadersJson() {}

  /** The headers as a JSON object, names in sorted order. */
  static String write(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return "{}";
    }
    StringBuilder json = new StringBuilder(headers.size() * 32).append('{');
    new TreeMap<>(headers)
        .forEach(
            (name, value) -> {
              if (json.length() > 1) {
                json.append(',');
              }
              quote(json, name).append(':');
              quote(json, value);
            });
    return json.append('}').toString();
  }

  /**
   * The headers of a JSON object of strings.
   *
   * @throws IllegalArgumentException naming the position when the text is not such an object
   */
  static Map<String, String> read(String json) {
    if (json == null || json.isBlank() || json.equals("{}")) {
      return Map.of();
    }
    Reader reader = new Reader(json);
    Map<String, String> headers = new TreeMap<>();
    reader.expect('{');
    if (!reader.next('}')) {
      do {
        String name = reader.string();
        reader.expect(':');
        headers.put(name, reader.string());
      } while (reader.next(','));
      reader.expect('}');
    }
    reader.end();
    return Collections.unmodifiableMap(headers);
  }

  private static StringBuilder quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        case '\b' -> json.append("\\b");
        case '\f' -> json.append("\\f");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    return json.append('"');
  }

  /** Reads one JSON object of strings, skipping whitespace between tokens. */
  private static final class Reader {
    private final String json;
    private int at;

    Reader(String json) {
      this.json = json;
    }

    void expect(char c) {
      if (!next(c)) {
        throw error("'" + c + "'");
      }
    }

    boolean next(char c) {
      skipWhitespace();
      if (at < json.length() && json.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    void end() {
      skipWhitespace();
      if (at != json.length()) {
        throw error("the end");
      }
    }

    String string() {
      expect('"');
      StringBuilder text = new StringBuilder();
      while (at < json.length()) {
        char c = json.charAt(at++);
        if (c == '"') {
          return text.toString();
        }
        if (c != '\\') {
          text.append(c);
          continue;
        }
        if (at >= json.length()) {
          break;
        }
        char escaped = json.charAt(at++);
        switch (escaped) {
          case '"', '\\', '/' -> text.append(escaped);
          case 'n' -> text.append('\n');
          case 'r' -> text.append('\r');
          case 't' -> text.append('\t');
          case 'b' -> text.append('\b');
          case 'f' -> text.append('\f');
          case 'u' -> {
            if (at + 4 > json.length()) {
              throw error("four hex digits");
            }
            try {
              text.append((char) Integer.parseInt(json.substring(at, at + 4), 16));
            } catch (NumberFormatException e) {
              throw error("four hex digits");
            }
            at += 4;
          }
          default -> throw error("an escape");
        }
      }
      throw error("'\"'");
    }

    private void skipWhitespace() {
      while (at < json.length() && Character.isWhitespace(json.charAt(at))) {
        at++;
      }
    }

    private IllegalArgumentException error(String expected) {
      return new IllegalArgumentException(
          "Not a JSON object of strings: expected " + expected + " at position " + at);
    }
  }
}
