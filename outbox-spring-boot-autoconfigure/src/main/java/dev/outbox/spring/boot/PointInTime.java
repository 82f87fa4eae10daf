package dev.outbox.spring.boot;

import dev.outbox.spi.OptionsBinder;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Reads the endpoint's {@code since} and {@code until} as the CLI reads them: an ISO-8601 instant
 * ({@code 2026-11-26T08:00:00Z}), a date (its start, in UTC), or how long ago ({@code 30m}, {@code
 * 2h}, {@code 1d}, {@code PT2H}).
 */
final class PointInTime {

  /** The accepted forms, for error messages. */
  static final String ACCEPTED =
      "an ISO-8601 instant (2026-11-26T08:00:00Z), a date (2026-11-26, UTC) or how long ago"
          + " (30m, 2h, 1d, PT2H)";

  private PointInTime() {}

  /**
   * The point in time the text names.
   *
   * @param text the text
   * @param clock the clock a duration counts back from
   * @return the instant
   * @throws IllegalArgumentException when the text is none of the {@link #ACCEPTED} forms
   */
  static Instant parse(String text, Clock clock) {
    String value = text.strip();
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException notAnInstant) {
      // next form
    }
    try {
      return LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeParseException notADate) {
      // next form
    }
    if (value.startsWith("-")) {
      throw new IllegalArgumentException("expected " + ACCEPTED + ", but was " + text);
    }
    try {
      return clock.instant().minus(OptionsBinder.duration(value));
    } catch (IllegalArgumentException | ArithmeticException | DateTimeException e) {
      throw new IllegalArgumentException("expected " + ACCEPTED + ", but was " + text, e);
    }
  }
}
