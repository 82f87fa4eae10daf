package dev.outbox.inbox;

import java.time.Instant;
import java.util.Objects;

/**
 * A consumer's position on one aggregate, as {@link Inbox#positions(int)} and {@link
 * Inbox#gaps(int)} read it: the last message applied and, when a message beyond a gap is waiting,
 * that message and since when.
 *
 * @param source the consumer's name
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param epoch the epoch of the last message applied, 0 when none was
 * @param appliedSeq the seq of the last message applied, 0 when none was
 * @param appliedAt when the position last moved (or was created), on the database clock
 * @param gapEpoch the epoch of the first message found beyond a gap still open, 0 when none
 * @param gapSeq the seq of the first message found beyond a gap still open, 0 when none
 * @param gapSince when that gap was first found, on the database clock; {@code null} when none
 */
public record InboxPosition(
    String source,
    String aggregateType,
    String aggregateId,
    long epoch,
    long appliedSeq,
    Instant appliedAt,
    long gapEpoch,
    long gapSeq,
    Instant gapSince) {

  /** Checks that the key is set. */
  public InboxPosition {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
  }

  /**
   * Whether a message beyond a gap is waiting for the messages before it: the gap was recorded
   * ({@link GapPolicy#WAIT}) and the position has not reached that message yet.
   *
   * @return whether {@link #gapSeq()} is set
   */
  public boolean hasGap() {
    return gapSeq > 0;
  }
}
