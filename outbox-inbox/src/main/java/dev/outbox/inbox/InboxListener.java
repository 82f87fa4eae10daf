package dev.outbox.inbox;

/**
 * Observes what the inbox does with each message, for metrics and tests. Every method does nothing
 * by default. Called on the thread that applies the message, when the outcome is known and before
 * the transaction commits (so an applied message whose transaction then rolls back was reported). A
 * listener that throws is logged and otherwise ignored.
 */
public interface InboxListener {

  /**
   * A message was applied: the handler returned and the position moved.
   *
   * @param result what happened
   */
  default void applied(InboxResult result) {}

  /**
   * A message was applied before and was skipped.
   *
   * @param result what happened
   */
  default void duplicate(InboxResult result) {}

  /**
   * A message came before messages it follows. Also called, before the exception, under {@link
   * GapPolicy#FAIL}; under {@link GapPolicy#APPLY} the message is reported as {@link #applied}.
   *
   * @param result what happened
   */
  default void gap(InboxResult result) {}
}
