package dev.outbox;

import java.time.Duration;

/** The checks the options' setters share; each message names the field and the bad value. */
final class OptionChecks {

  private OptionChecks() {}

  static Duration positive(String field, Duration value) {
    RetryPolicy.requirePositive(field, value);
    return value;
  }

  static Duration notNegative(String field, Duration value) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(field + " must be >= 0, but was " + value);
    }
    RetryPolicy.requireAtMostLongest(field, value);
    return value;
  }

  static Duration atMost(String field, Duration value, Duration max, String why) {
    if (value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          field + " must be at most " + max + " (" + why + "), but was " + value);
    }
    return value;
  }

  static int between(String field, int value, int min, int max) {
    if (value < min || value > max) {
      String range = max == Integer.MAX_VALUE ? ">= " + min : "between " + min + " and " + max;
      throw new IllegalArgumentException(field + " must be " + range + ", but was " + value);
    }
    return value;
  }

  static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }
}
