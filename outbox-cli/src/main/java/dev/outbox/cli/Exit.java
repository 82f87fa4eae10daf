package dev.outbox.cli;

/** The exit codes of the tool, as {@code outbox --help} lists them. */
final class Exit {

  /** Done. */
  static final int OK = 0;

  /** An unexpected failure; the message is printed, the stack trace with {@code --verbose}. */
  static final int FAILURE = 1;

  /** Bad arguments (picocli's usage code). */
  static final int USAGE = 2;

  /** The database cannot be reached or refused the login. */
  static final int UNREACHABLE = 3;

  /** The outbox tables are not in that database. */
  static final int NO_TABLES = 4;

  /** No dead letter has that id. */
  static final int NOT_FOUND = 5;

  /** {@code --expect} differs from what matched; nothing changed. */
  static final int UNEXPECTED_COUNT = 6;

  private Exit() {}
}
