package dev.outbox.cli;

/** A failure the tool reports as one line and an exit code of {@link Exit}. */
final class CliException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  CliException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
