package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersJsonTest {

  private static final ObjectMapper JACKSON = new ObjectMapper();

  @Test
  void writesWhatAJsonParserReadsBackExactly() throws Exception {
    Map<String, String> headers =
        Map.of(
            "tenant", "acme",
            "quote\"and\\back", "line\nbreak\ttab\r\b\f",
            "control", "\u0001\u001f",
            "unicode", "Grüße 🚀 𝄞",
            "empty", "");

    String json = HeadersJson.write(headers);

    assertThat(JACKSON.readValue(json, new TypeReference<Map<String, String>>() {}))
        .isEqualTo(headers);
    assertThat(HeadersJson.read(json)).isEqualTo(headers);
  }

  @Test
  void readsWhatJacksonWroteIncludingEscapesAndWhitespace() throws Exception {
    Map<String, String> headers = Map.of("a/b", "\u00e9\u2028", "x", "\"\\/");
    String jackson = JACKSON.writerWithDefaultPrettyPrinter().writeValueAsString(headers);

    assertThat(HeadersJson.read(jackson)).isEqualTo(headers);
    assertThat(HeadersJson.read("{ \"k\" : \"\\u0041\\/\" }")).isEqualTo(Map.of("k", "A/"));
  }

  @Test
  void anEmptyObjectOrNoColumnIsNoHeaders() {
    assertThat(HeadersJson.write(Map.of())).isEqualTo("{}");
    assertThat(HeadersJson.read("{}")).isEmpty();
    assertThat(HeadersJson.read(" { } ")).isEmpty();
    assertThat(HeadersJson.read(null)).isEmpty();
  }

  @Test
  void namesAreWrittenInSortedOrder() {
    assertThat(HeadersJson.write(Map.of("b", "2", "a", "1")))
        .isEqualTo("{\"a\":\"1\",\"b\":\"2\"}");
  }

  @Test
  void somethingElseThanAnObjectOfStringsIsRefusedWithItsPosition() {
    assertThatThrownBy(() -> HeadersJson.read("{\"a\":1}"))
        .hasMessage("Not a JSON object of strings: expected '\"' at position 5");
    assertThatThrownBy(() -> HeadersJson.read("{\"a\":\"1\"} x"))
        .hasMessageContaining("expected the end");
    assertThatThrownBy(() -> HeadersJson.read("{\"a\":\"1")).hasMessageContaining("expected '\"'");
    assertThatThrownBy(() -> HeadersJson.read("{\"a\":\"\\uZZ\"}"))
        .hasMessageContaining("four hex digits");
  }
}
