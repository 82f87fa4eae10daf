package dev.outbox.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d} or ISO-8601 ({@code PT2S}).
 */
final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    String text = value.strip();
    Matcher matcher = SHORT.matcher(text);
    if (matcher.matches()) {
      long amount = Long.parseLong(matcher.group(1));
      return switch (matcher.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration: write 500ms, 2s, 5m, 1h, 7d or ISO-8601 (PT2S)");
    }
  }
}
