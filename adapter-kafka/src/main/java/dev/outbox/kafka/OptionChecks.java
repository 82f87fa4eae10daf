package dev.outbox.kafka;

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
}
