package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The endpoint's {@code since} and {@code until}: an instant, a date, or how long ago. */
class PointInTimeTest {

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  @Test
  void anInstantADateAndADurationAgoAreRead() {
    assertThat(PointInTime.parse("2026-11-26T08:00:00Z", CLOCK))
        .isEqualTo(Instant.parse("2026-11-26T08:00:00Z"));
    assertThat(PointInTime.parse("2026-11-25", CLOCK))
        .isEqualTo(Instant.parse("2026-11-25T00:00:00Z"));
    assertThat(PointInTime.parse("2h", CLOCK)).isEqualTo(Instant.parse("2026-11-26T10:00:00Z"));
    assertThat(PointInTime.parse("30m", CLOCK)).isEqualTo(Instant.parse("2026-11-26T11:30:00Z"));
    assertThat(PointInTime.parse("1d", CLOCK)).isEqualTo(Instant.parse("2026-11-25T12:00:00Z"));
    assertThat(PointInTime.parse(" PT2H ", CLOCK)).isEqualTo(Instant.parse("2026-11-26T10:00:00Z"));
  }

  @Test
  void anythingElseIsRefusedWithTheAcceptedForms() {
    for (String text : new String[] {"yesterday", "-2h", "2 hours", ""}) {
      assertThatThrownBy(() -> PointInTime.parse(text, CLOCK))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("how long ago (30m, 2h, 1d, PT2H)")
          .hasMessageEndingWith("but was " + text);
    }
  }
}
