package dev.outbox.cli;

import java.time.Duration;
import java.util.Locale;

/** How the text output writes durations, counts and long values. */
final class Text {

  private Text() {}

  /** {@code 850 ms}, {@code 4.2 s}, {@code 12.5 min}, {@code 3.1 h}, {@code 2.0 d}. */
  static String duration(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1_000) {
      return millis + " ms";
    }
    double seconds = millis / 1000.0;
    if (seconds < 120) {
      return String.format(Locale.ROOT, "%.1f s", seconds);
    }
    if (seconds < 7_200) {
      return String.format(Locale.ROOT, "%.1f min", seconds / 60);
    }
    if (seconds < 172_800) {
      return String.format(Locale.ROOT, "%.1f h", seconds / 3_600);
    }
    return String.format(Locale.ROOT, "%.1f d", seconds / 86_400);
  }

  /** The text cut to {@code max} characters with an ellipsis, on one line. */
  static String cut(String text, int max) {
    if (text == null) {
      return "";
    }
    String line = text.replace('\n', ' ').replace('\r', ' ');
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }

  /** {@code 1 aggregate}, {@code 0 aggregates}, {@code 3 aggregates}: singular for one only. */
  static String count(long count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }

  /** {@code 1 dead letter matches}, {@code 3 dead letters match}. */
  static String deadLettersMatch(long count) {
    return count(count, "dead letter") + (count == 1 ? " matches" : " match");
  }
}
