package dev.outbox.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.inbox.internal.Decision.Position;
import dev.outbox.inbox.internal.Decision.Verdict;
import org.junit.jupiter.api.Test;

class DecisionTest {

  private static Verdict decide(Position at, long epoch, long seq, long prevSeq) {
    return Decision.decide(at, epoch, seq, prevSeq);
  }

  private static Position at(long epoch, long seq) {
    return new Position(epoch, seq);
  }

  @Test
  void withoutAPositionOnlyTheFirstMessageOfAStreamIsApplied() {
    assertThat(decide(null, 1, 1, 0)).isEqualTo(Verdict.APPLY);
    assertThat(decide(null, 0, 1, 0)).isEqualTo(Verdict.APPLY);
    assertThat(decide(null, 7, 5, 0)).isEqualTo(Verdict.APPLY);
    assertThat(decide(null, 1, 2, 1)).isEqualTo(Verdict.GAP);
    assertThat(decide(null, 0, 9, 8)).isEqualTo(Verdict.GAP);
  }

  @Test
  void aRowWithNothingAppliedDecidesAsNoRow() {
    for (long[] message : new long[][] {{1, 1, 0}, {0, 1, 0}, {1, 2, 1}, {0, 3, 2}, {5, 4, 0}}) {
      assertThat(decide(Position.NONE, message[0], message[1], message[2]))
          .isEqualTo(decide(null, message[0], message[1], message[2]));
    }
  }

  @Test
  void theNextMessageOfTheEpochIsApplied() {
    assertThat(decide(at(3, 5), 3, 6, 5)).isEqualTo(Verdict.APPLY);
    assertThat(decide(at(0, 1), 0, 2, 1)).isEqualTo(Verdict.APPLY);
  }

  @Test
  void aMessageAtOrBelowThePositionIsADuplicate() {
    assertThat(decide(at(3, 5), 3, 5, 4)).isEqualTo(Verdict.DUPLICATE);
    assertThat(decide(at(3, 5), 3, 1, 0)).isEqualTo(Verdict.DUPLICATE);
    assertThat(decide(at(3, 5), 3, 4, 2)).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  void aMessageOfAnEarlierEpochIsADuplicateWhateverItsSeq() {
    assertThat(decide(at(3, 1), 2, 1, 0)).isEqualTo(Verdict.DUPLICATE);
    assertThat(decide(at(3, 1), 2, 99, 98)).isEqualTo(Verdict.DUPLICATE);
    assertThat(decide(at(3, 1), 0, 2, 0)).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  void aMessageWhosePreviousSeqIsBeyondThePositionIsAGap() {
    assertThat(decide(at(3, 5), 3, 7, 6)).isEqualTo(Verdict.GAP);
    assertThat(decide(at(3, 5), 3, 9, 8)).isEqualTo(Verdict.GAP);
  }

  @Test
  void seqsSkippedByDeadLettersAreNotWaitedFor() {
    // 6 and 7 were dead-lettered: 8 follows 5.
    assertThat(decide(at(3, 5), 3, 8, 5)).isEqualTo(Verdict.APPLY);
    // 7 was dead-lettered but 6 is still to come.
    assertThat(decide(at(3, 5), 3, 8, 6)).isEqualTo(Verdict.GAP);
    // The skipped messages, should they come after all, are duplicates once 8 is applied.
    assertThat(decide(at(3, 8), 3, 6, 5)).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  void aPositionPastThePreviousSeqButBeforeTheSeqStillAppliesTheMessage() {
    // q <= p < s: seq 6 was applied although the producer dead-lettered it after publishing.
    assertThat(decide(at(3, 6), 3, 8, 5)).isEqualTo(Verdict.APPLY);
  }

  @Test
  void aNewEpochIsAppliedFromItsFirstMessageOnly() {
    assertThat(decide(at(3, 40), 4, 1, 0)).isEqualTo(Verdict.APPLY);
    assertThat(decide(at(3, 40), 4, 3, 0)).isEqualTo(Verdict.APPLY);
    assertThat(decide(at(3, 40), 4, 2, 1)).isEqualTo(Verdict.GAP);
    assertThat(decide(at(3, 40), 9, 41, 40)).isEqualTo(Verdict.GAP);
  }

  @Test
  void positionsCompareEpochFirst() {
    assertThat(at(1, 9).isBefore(2, 1)).isTrue();
    assertThat(at(2, 1).isBefore(2, 2)).isTrue();
    assertThat(at(2, 2).isBefore(2, 2)).isFalse();
    assertThat(at(3, 0).isBefore(2, 9)).isFalse();
  }
}
