package dev.outbox;

/**
 * A failure of the outbox that the caller should see: an event that cannot be serialized, a missing
 * outbox table, a misconfiguration. The message says what is wrong and how to fix it.
 */
public class OutboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception.
   *
   * @param message what is wrong and how to fix it
   */
  public OutboxException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a cause.
   *
   * @param message what is wrong and how to fix it
   * @param cause the underlying failure
   */
  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
