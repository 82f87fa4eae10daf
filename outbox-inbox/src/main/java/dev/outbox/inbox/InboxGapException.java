package dev.outbox.inbox;

import dev.outbox.OutboxException;

/**
 * A message came before messages it follows, and the inbox's {@link GapPolicy} is {@link
 * GapPolicy#FAIL}: nothing was written. The message names the source, the aggregate, the position
 * and the message; the accessors give the same facts.
 */
public class InboxGapException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /** The aggregate, its position and the message id, as the inbox found them. */
  private final InboxResult found;

  private final long messageEpoch;
  private final long messageSeq;
  private final long messagePrevSeq;

  /**
   * Creates the exception.
   *
   * @param message what is wrong and what to do
   * @param found the outcome the inbox came to ({@link InboxOutcome#GAP}), with the aggregate, the
   *     position and the message id
   * @param messageEpoch the message's epoch
   * @param messageSeq the message's seq
   * @param messagePrevSeq the message's previous seq
   */
  public InboxGapException(
      String message, InboxResult found, long messageEpoch, long messageSeq, long messagePrevSeq) {
    super(message);
    this.found = found;
    this.messageEpoch = messageEpoch;
    this.messageSeq = messageSeq;
    this.messagePrevSeq = messagePrevSeq;
  }

  /**
   * The consumer's name.
   *
   * @return {@link InboxOptions#source()}
   */
  public String source() {
    return found.source();
  }

  /**
   * The aggregate, the position and the message id, as a {@link InboxOutcome#GAP} result.
   *
   * @return the result the inbox would have answered under {@link GapPolicy#WAIT}
   */
  public InboxResult found() {
    return found;
  }

  /**
   * The message's epoch.
   *
   * @return the epoch
   */
  public long messageEpoch() {
    return messageEpoch;
  }

  /**
   * The message's seq.
   *
   * @return the seq
   */
  public long messageSeq() {
    return messageSeq;
  }

  /**
   * The seq of the message the producer published before this one: the position must reach it.
   *
   * @return the previous seq
   */
  public long messagePrevSeq() {
    return messagePrevSeq;
  }
}
