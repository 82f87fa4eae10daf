package dev.outbox.spi;

/**
 * The checks and quoting of text option values that the adapters' options share, so that their
 * messages read alike: {@code exchangeType must not be blank, but was " "}.
 */
public final class OptionText {

  private OptionText() {}

  /**
   * Returns the value when it holds text.
   *
   * @param field the option's name, for the message
   * @param value the value given
   * @return the value
   * @throws IllegalArgumentException naming the field and the value when it is null or blank
   */
  public static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, but was " + quote(value));
    }
    return value;
  }

  /**
   * A value as a message shows it.
   *
   * @param value the value, or {@code null}
   * @return the value in double quotes, or {@code null}
   */
  public static String quote(String value) {
    return value == null ? "null" : '"' + value + '"';
  }
}
