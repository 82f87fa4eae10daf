package dev.outbox.inbox;

/**
 * What the inbox does with a message that comes before the messages it follows: the position is
 * below the message's previous seq, so messages in between are still to come.
 */
public enum GapPolicy {

  /**
   * Do not run the handler; record the gap on the position (the first message beyond it and since
   * when, kept when the caller commits) and answer {@link InboxOutcome#GAP}, so that the caller
   * redelivers the message later. The default: order is kept and nothing is lost.
   */
  WAIT,

  /**
   * Run the handler anyway and move the position to the message, logging a warning that names the
   * source, the aggregate, the position and the message. The skipped messages become duplicates if
   * they ever arrive: for consumers that prefer the latest state to completeness.
   */
  APPLY,

  /**
   * Throw {@link InboxGapException}, which names the source, the aggregate, the position and the
   * message; nothing is written.
   */
  FAIL
}
