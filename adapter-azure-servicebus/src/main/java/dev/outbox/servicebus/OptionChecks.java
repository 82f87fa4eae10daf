package dev.outbox.servicebus;

/** The checks the options' setters share; each message names the field and the bad value. */
final class OptionChecks {

  private OptionChecks() {}

  static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          field + " must not be blank, but was " + (value == null ? "null" : "'" + value + "'"));
    }
    return value;
  }
}
