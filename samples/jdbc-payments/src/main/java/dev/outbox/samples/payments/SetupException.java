package dev.outbox.samples.payments;

import java.util.regex.Pattern;

/**
 * Bad input or an unreachable server: the demo prints the message as one line and exits with code
 * 2. The message says what is wrong and how to fix it, with no password in it.
 */
public final class SetupException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private static final Pattern URI_PASSWORD = Pattern.compile("(://[^:/@\\s]+:)[^@\\s]+@");
  private static final Pattern QUERY_PASSWORD = Pattern.compile("(?i)(password=)[^&;\\s]+");

  /**
   * An exception with the line to print.
   *
   * @param message what is wrong and how to fix it, one line
   */
  public SetupException(String message) {
    super(message, null, false, false);
  }

  /**
   * The first line of a cause's message, without credentials, for the end of a one-line message.
   *
   * @param cause what went wrong
   * @return the root cause's first message line (or its class name), passwords masked
   */
  public static String describe(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return redact(message.lines().findFirst().orElse("").strip());
  }

  /**
   * The text with the passwords of {@code scheme://user:password@host} and {@code password=...}
   * replaced by {@code ****}.
   *
   * @param text a URL or a message that may contain one
   * @return the masked text
   */
  public static String redact(String text) {
    String masked = URI_PASSWORD.matcher(text).replaceAll("$1****@");
    return QUERY_PASSWORD.matcher(masked).replaceAll("$1****");
  }
}
