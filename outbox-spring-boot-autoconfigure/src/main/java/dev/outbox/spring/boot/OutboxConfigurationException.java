package dev.outbox.spring.boot;

import dev.outbox.OutboxException;

/**
 * The outbox cannot start as configured: what is wrong, and what to do about it. Spring Boot's
 * startup failure report prints both ({@link OutboxFailureAnalyzer}).
 */
public class OutboxConfigurationException extends OutboxException {

  private static final long serialVersionUID = 1L;

  private final String action;

  /**
   * A configuration problem.
   *
   * @param description what is wrong, naming the property
   * @param action what to change
   * @param cause the underlying failure, or {@code null}
   */
  public OutboxConfigurationException(String description, String action, Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  /**
   * What to change.
   *
   * @return the action, one or more sentences
   */
  public String action() {
    return action;
  }
}
