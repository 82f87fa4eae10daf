package dev.outbox.inbox.internal;

import dev.outbox.IncomingMessage;

/**
 * The rule that decides what a message is to a position, in one place. A position is the epoch and
 * seq of the last message applied; no row means nothing applied yet, which is the position (0, 0).
 * For a position (ep, p) and a message (e, s) whose previous seq is q:
 *
 * <ul>
 *   <li>e &lt; ep: a duplicate, from an earlier stream of the aggregate;
 *   <li>e = ep: s &le; p a duplicate; q &le; p &lt; s applied; q &gt; p a gap;
 *   <li>e &gt; ep: applied when q = 0 (the stream began again), else a gap.
 * </ul>
 */
final class Decision {

  /** What a message is to a position. */
  enum Verdict {
    APPLY,
    DUPLICATE,
    GAP
  }

  /** A position: the epoch and the seq last applied in it. */
  record Position(long epoch, long seq) {

    /** Nothing applied yet: what a missing row means. */
    static final Position NONE = new Position(0, 0);

    /** Whether this position is before another, epoch first. */
    boolean isBefore(long otherEpoch, long otherSeq) {
      return epoch < otherEpoch || (epoch == otherEpoch && seq < otherSeq);
    }
  }

  private Decision() {}

  /**
   * Decides a message against a position.
   *
   * @param position the position, {@code null} when there is no row
   * @param message a message with a seq
   * @return the verdict
   */
  static Verdict decide(Position position, IncomingMessage message) {
    return decide(position, message.epoch(), message.seq(), message.prevSeq());
  }

  /**
   * Decides a message (epoch, seq, previous seq) against a position.
   *
   * @param position the position, {@code null} when there is no row
   * @param epoch the message's epoch
   * @param seq the message's seq, 1 or more
   * @param prevSeq the message's previous seq, below seq
   * @return the verdict
   */
  static Verdict decide(Position position, long epoch, long seq, long prevSeq) {
    Position at = position == null ? Position.NONE : position;
    if (epoch < at.epoch()) {
      return Verdict.DUPLICATE;
    }
    if (epoch > at.epoch()) {
      return prevSeq == 0 ? Verdict.APPLY : Verdict.GAP;
    }
    if (seq <= at.seq()) {
      return Verdict.DUPLICATE;
    }
    return prevSeq <= at.seq() ? Verdict.APPLY : Verdict.GAP;
  }
}
