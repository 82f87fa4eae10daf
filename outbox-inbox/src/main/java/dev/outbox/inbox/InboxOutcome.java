package dev.outbox.inbox;

/** What the inbox did with a message. */
public enum InboxOutcome {

  /** The handler ran and the aggregate's position moved to the message (or its id was recorded). */
  APPLIED,

  /**
   * The message was applied before (its seq is at or below the position, or it belongs to an
   * earlier epoch of the aggregate, or its id was seen): the handler did not run. Acknowledge it.
   */
  DUPLICATE,

  /**
   * Messages before this one have not been applied yet and are still to come: the handler did not
   * run and the position did not move. Redeliver the message later (do not acknowledge it); with
   * {@link GapPolicy#WAIT} the gap is recorded on the position for {@link Inbox#gaps(int)}.
   */
  GAP
}
