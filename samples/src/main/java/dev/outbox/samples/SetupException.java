package dev.outbox.samples;

/**
 * Bad input or an unreachable server: the demo prints the message as one line and exits with code
 * 2. The message says what is wrong and how to fix it.
 */
public final class SetupException extends RuntimeException {

  private static final long serialVersionUID = 1L;

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
   * @return the cause's first message line (or its class name), secrets masked
   */
  public static String describe(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return Redaction.redact(message.lines().findFirst().orElse("").strip());
  }
}
