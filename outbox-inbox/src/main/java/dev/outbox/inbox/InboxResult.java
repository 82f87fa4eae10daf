package dev.outbox.inbox;

import java.util.Objects;

/**
 * What the inbox did with one message, and the aggregate's position before and after it.
 *
 * <p>A position is an epoch and the seq last applied in it; (0, 0) means nothing applied yet. For a
 * message without seq, de-duplicated by its id, the aggregate may be {@code null} and both
 * positions are (0, 0).
 *
 * @param outcome applied, duplicate or gap
 * @param source the consumer's name ({@link InboxOptions#source()})
 * @param aggregateType the message's aggregate type, {@code null} when it has none
 * @param aggregateId the message's aggregate id, {@code null} when it has none
 * @param epochBefore the position's epoch before the message
 * @param seqBefore the position's seq before the message
 * @param epochAfter the position's epoch after the message: the message's epoch when applied
 * @param seqAfter the position's seq after the message: the message's seq when applied
 * @param messageId the message's id
 */
public record InboxResult(
    InboxOutcome outcome,
    String source,
    String aggregateType,
    String aggregateId,
    long epochBefore,
    long seqBefore,
    long epochAfter,
    long seqAfter,
    String messageId) {

  /** Checks that the outcome, the source and the message id are set. */
  public InboxResult {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(messageId, "messageId");
  }

  /**
   * Whether the handler ran and the message counts as applied.
   *
   * @return {@code outcome() == APPLIED}
   */
  public boolean applied() {
    return outcome == InboxOutcome.APPLIED;
  }

  /**
   * Whether the caller should acknowledge the message to its broker: applied or duplicate, as
   * opposed to a gap, which is redelivered later.
   *
   * @return {@code outcome() != GAP}
   */
  public boolean acknowledge() {
    return outcome != InboxOutcome.GAP;
  }
}
