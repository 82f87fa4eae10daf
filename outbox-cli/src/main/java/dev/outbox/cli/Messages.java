package dev.outbox.cli;

/** Short texts of exceptions for one-line errors. */
final class Messages {

  private Messages() {}

  /**
   * The first line of the message of a failure without a final period (or its class when it has no
   * message).
   */
  static String firstLine(Throwable failure) {
    String message = failure.getMessage();
    if (message == null || message.isBlank()) {
      return failure.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    String line = (newline < 0 ? message : message.substring(0, newline)).strip();
    return line.endsWith(".") ? line.substring(0, line.length() - 1) : line;
  }
}
