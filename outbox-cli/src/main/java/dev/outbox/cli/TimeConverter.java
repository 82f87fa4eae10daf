package dev.outbox.cli;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a point in time: an ISO-8601 instant ({@code 2026-11-25T10:00:00Z}), a date (its start, in
 * UTC), or a duration ago ({@code 30m}, {@code 2h}, {@code 7d}) on the tool's clock.
 */
final class TimeConverter implements ITypeConverter<Instant> {

  private final Context context;

  TimeConverter(Context context) {
    this.context = context;
  }

  @Override
  public Instant convert(String value) {
    String text = value.strip();
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notAnInstant) {
      // next form
    }
    try {
      return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeParseException notADate) {
      // next form
    }
    try {
      return context.clock().instant().minus(DurationConverter.parse(text));
    } catch (TypeConversionException notADuration) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a time: write an instant (2026-11-25T10:00:00Z), a date (2026-11-25,"
              + " UTC) or how long ago (30m, 2h, 7d)");
    }
  }
}
