package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/** Durations and times as operators write them. */
class ConvertersTest {

  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

  private final TimeConverter times =
      new TimeConverter(
          new Context(
              Map.of(),
              new PrintWriter(new StringWriter()),
              new PrintWriter(new StringWriter()),
              Clock.fixed(NOW, ZoneOffset.UTC),
              false));

  @Test
  void durationsInShortFormOrIso() {
    assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationConverter.parse("2s")).isEqualTo(Duration.ofSeconds(2));
    assertThat(DurationConverter.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationConverter.parse("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(DurationConverter.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    assertThatThrownBy(() -> DurationConverter.parse("soon"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'soon' is not a duration");
  }

  @Test
  void timesAsInstantsDatesOrHowLongAgo() {
    assertThat(times.convert("2026-11-24T08:30:00Z")).isEqualTo("2026-11-24T08:30:00Z");
    assertThat(times.convert("2026-11-24")).isEqualTo("2026-11-24T00:00:00Z");
    assertThat(times.convert("2h")).isEqualTo(NOW.minus(Duration.ofHours(2)));
    assertThatThrownBy(() -> times.convert("yesterday"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'yesterday' is not a time");
  }

  @Test
  void durationsPrintReadably() {
    assertThat(Text.duration(Duration.ofMillis(850))).isEqualTo("850 ms");
    assertThat(Text.duration(Duration.ofMillis(4_200))).isEqualTo("4.2 s");
    assertThat(Text.duration(Duration.ofMinutes(12).plusSeconds(30))).isEqualTo("12.5 min");
    assertThat(Text.duration(Duration.ofDays(3))).isEqualTo("3.0 d");
  }
}
