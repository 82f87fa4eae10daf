package dev.outbox.nats;

import java.time.Duration;

/** The checks the options' setters share; each message names the field and the bad value. */
final class OptionChecks {

  private OptionChecks() {}

  static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, but was " + quote(value));
    }
    return value;
  }

  static Duration positive(String field, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + value);
    }
    return value;
  }

  private static String quote(String value) {
    return value == null ? "null" : '"' + value + '"';
  }
}
