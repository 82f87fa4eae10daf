package dev.outbox.rabbitmq;

import java.time.Duration;
import java.util.Objects;

/** The checks the options' setters share; each message names the field and the bad value. */
final class OptionChecks {

  private OptionChecks() {}

  static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, but was " + quote(value));
    }
    return value;
  }

  static String quote(String value) {
    return value == null ? "null" : '"' + value + '"';
  }

  static Duration requireDuration(String field, Duration value, boolean zeroAllowed) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || (!zeroAllowed && value.isZero())) {
      throw new IllegalArgumentException(
          field + " must be " + (zeroAllowed ? ">= 0" : "> 0") + ", but was " + value);
    }
    return value;
  }
}
