package dev.outbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.testing.InMemoryOutboxStore.Head;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link dev.outbox.spi.OutboxStore} version 2, on the reference store the engine
 * tests run against: heads, cursors, continuation, fencing, renewal, cleanup and dead letters.
 */
class InMemoryOutboxStoreTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);

  private static ClaimRequest claim(String instanceId, int limit) {
    return new ClaimRequest(instanceId, limit, LEASE, true);
  }

  private static ClaimRequest continueOnly(String instanceId, int limit) {
    return new ClaimRequest(instanceId, limit, LEASE, false);
  }

  private List<OutboxMessage> add(String aggregateId, int count) {
    List<OutboxMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(store.add("Order", aggregateId, "e" + i));
    }
    return messages;
  }

  private Head head(String aggregateId) {
    return store.head("Order", aggregateId).orElseThrow();
  }

  private static List<Long> seqs(LeasedHead head) {
    return head.messages().stream().map(OutboxMessage::seq).toList();
  }

  private static HeadOutcome.Retry retry(Lease lease, long deliveredSeq, int attempts) {
    return new HeadOutcome.Retry(lease, deliveredSeq, attempts, "boom", Duration.ofSeconds(5));
  }

  private static HeadOutcome.DeadLettered dead(LeasedHead head, boolean hold) {
    OutboxMessage message = head.messages().get(0);
    return new HeadOutcome.DeadLettered(
        head.lease(), message.seq() - 1, message.id(), message.seq(), 3, "gone", T0, hold);
  }

  @Test
  void seqIsGapFreePerAggregateInWriteOrder() {
    OutboxMessage a1 = store.add("Order", "a", "e");
    OutboxMessage b1 = store.add("Order", "b", "e");
    OutboxMessage a2 = store.add("Order", "a", "e");

    assertThat(List.of(a1.seq(), b1.seq(), a2.seq())).containsExactly(1L, 1L, 2L);
    assertThat(head("a").writeSeq()).isEqualTo(2);
    assertThat(head("a").deliveredSeq()).isZero();
  }

  @Test
  void aClaimSharesItsLimitAmongTheHeadsItTakes() {
    add("a", 5);
    add("b", 5);
    add("c", 5);

    List<LeasedHead> heads = store.claim(claim("p", 6));

    assertThat(heads).extracting(h -> h.lease().aggregateId()).containsExactly("a", "b", "c");
    assertThat(heads).allSatisfy(h -> assertThat(seqs(h)).containsExactly(1L, 2L));
    assertThat(heads).allSatisfy(h -> assertThat(h.lease().token()).isEqualTo(1));
    assertThat(head("a").claimedBy()).isEqualTo("p");
    assertThat(head("a").availableAt()).isEqualTo(T0.plus(LEASE));
  }

  @Test
  void aClaimTakesAtMostLimitHeadsOneMessageEach() {
    add("a", 2);
    add("b", 2);
    add("c", 2);

    List<LeasedHead> heads = store.claim(claim("p", 2));

    assertThat(heads).extracting(h -> h.lease().aggregateId()).containsExactly("a", "b");
    assertThat(heads).allSatisfy(h -> assertThat(h.messages()).hasSize(1));
    assertThat(head("c").claimedBy()).as("not taken, not leased").isNull();
    assertThat(head("c").leaseToken()).isZero();
  }

  @Test
  void aClaimSkipsLeasedRetryingAndHeldHeadsAndTakesTheRestOldestDueFirst() {
    add("leased", 1);
    add("retrying", 1);
    add("held", 1);
    add("due", 1);
    List<LeasedHead> first = store.claim(claim("p", 100));
    clock.advance(Duration.ofSeconds(1));
    add("later", 1);
    store.record(
        List.of(
            retry(first.get(1).lease(), 0, 1),
            dead(first.get(2), true),
            new HeadOutcome.Released(first.get(3).lease(), 0)));

    assertThat(store.claim(claim("q", 100)))
        .extracting(h -> h.lease().aggregateId())
        .as("released at T0+1s, before the head first written then")
        .containsExactly("due", "later");
    clock.advance(LEASE);
    assertThat(store.claim(claim("q", 100)))
        .extracting(h -> h.lease().aggregateId())
        .containsExactly("retrying", "leased", "due", "later");
  }

  @Test
  void theFirstMessageOfAClaimedHeadCarriesTheHeadsFailedAttempts() {
    add("a", 2);
    LeasedHead held = store.claim(claim("p", 10)).get(0);
    store.record(List.of(retry(held.lease(), 0, 2)));
    clock.advance(Duration.ofSeconds(5));

    LeasedHead again = store.claim(claim("p", 10)).get(0);

    assertThat(again.messages()).extracting(OutboxMessage::attempts).containsExactly(2, 0);
    assertThat(again.lease().token()).isEqualTo(2);
  }

  @Test
  void aDeliveredHeadWithMoreMessagesStaysLeasedUnderItsTokenAndComesBackFirst() {
    add("a", 5);
    LeasedHead held = store.claim(claim("p", 2)).get(0);
    add("b", 1);
    clock.advance(Duration.ofSeconds(1));

    List<LeasedHead> next =
        store.recordAndClaim(List.of(new HeadOutcome.Delivered(held.lease(), 2)), claim("p", 3));

    assertThat(next).extracting(LeasedHead::lease).first().isEqualTo(held.lease());
    assertThat(seqs(next.get(0))).as("counts against the limit").containsExactly(3L, 4L, 5L);
    assertThat(next).hasSize(1);
    assertThat(head("a").availableAt()).isEqualTo(T0.plusSeconds(1).plus(LEASE));
    assertThat(head("a").deliveredSeq()).isEqualTo(2);
    assertThat(head("b").claimedBy()).as("no limit left for new heads").isNull();
  }

  @Test
  void aRecordThatClaimsNoNewHeadsStillContinuesAndThenTakesNothingElse() {
    add("a", 3);
    LeasedHead held = store.claim(claim("p", 1)).get(0);
    add("b", 1);

    List<LeasedHead> next =
        store.recordAndClaim(
            List.of(new HeadOutcome.Delivered(held.lease(), 1)), continueOnly("p", 10));

    assertThat(next).hasSize(1);
    assertThat(seqs(next.get(0))).containsExactly(2L, 3L);
    assertThat(head("b").claimedBy()).isNull();
  }

  @Test
  void aDeliveredHeadWithNothingMoreIsReleasedAndNewHeadsAreClaimedAfterIt() {
    add("a", 1);
    LeasedHead held = store.claim(claim("p", 10)).get(0);
    add("b", 1);

    List<LeasedHead> next =
        store.recordAndClaim(List.of(new HeadOutcome.Delivered(held.lease(), 1)), claim("p", 10));

    assertThat(next).extracting(h -> h.lease().aggregateId()).containsExactly("b");
    assertThat(head("a").claimedBy()).isNull();
    assertThat(head("a").deliveredSeq()).isEqualTo(1);
  }

  @Test
  void recordWithoutContinuationReleasesAHeadWithMoreMessagesClaimableAtOnce() {
    add("a", 3);
    LeasedHead held = store.claim(claim("p", 1)).get(0);

    store.record(List.of(new HeadOutcome.Delivered(held.lease(), 1)));

    Head head = head("a");
    assertThat(head.claimedBy()).isNull();
    assertThat(head.availableAt()).isEqualTo(T0);
    assertThat(seqs(store.claim(claim("q", 10)).get(0))).containsExactly(2L, 3L);
  }

  @Test
  void aReleaseCountsNoAttemptAndTheCursorNeverMovesBack() {
    add("a", 3);
    LeasedHead held = store.claim(claim("p", 10)).get(0);
    store.record(List.of(new HeadOutcome.Released(held.lease(), 2)));
    LeasedHead again = store.claim(claim("p", 10)).get(0);

    store.record(List.of(new HeadOutcome.Released(again.lease(), 0)));

    assertThat(head("a").deliveredSeq()).isEqualTo(2);
    assertThat(head("a").attempts()).isZero();
    assertThat(head("a").availableAt()).isEqualTo(T0);
  }

  @Test
  void aRetryCountsTheAttemptKeepsTheErrorAndIsDueAfterTheDelayOnTheStoresClock() {
    OutboxMessage first = add("a", 2).get(0);
    LeasedHead held = store.claim(claim("p", 10)).get(0);

    store.record(List.of(retry(held.lease(), 0, 1)));

    InMemoryOutboxStore.Row row = store.row(first.id()).orElseThrow();
    assertThat(row.message().attempts()).isEqualTo(1);
    assertThat(row.lastError()).isEqualTo("boom");
    assertThat(row.nextAttemptAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(row.claimedBy()).isNull();
    assertThat(store.claim(claim("p", 10))).isEmpty();
  }

  @Test
  void anOutcomeUnderAStaleTokenChangesNothing() {
    OutboxMessage first = add("a", 3).get(0);
    LeasedHead stale = store.claim(claim("p", 10)).get(0);
    clock.advance(LEASE);
    LeasedHead current = store.claim(claim("q", 10)).get(0);
    Head granted = head("a");

    store.record(List.of(new HeadOutcome.Delivered(stale.lease(), 3)));
    store.record(List.of(new HeadOutcome.Released(stale.lease(), 0)));
    store.record(List.of(retry(stale.lease(), 0, 1)));
    store.record(List.of(dead(stale, true)));
    assertThat(
            store.recordAndClaim(
                List.of(new HeadOutcome.Delivered(stale.lease(), 1)), claim("p", 10)))
        .isEmpty();

    assertThat(head("a")).isEqualTo(granted);
    assertThat(granted.claimedBy()).isEqualTo("q");
    assertThat(granted.leaseToken()).isEqualTo(current.lease().token()).isEqualTo(2);
    assertThat(store.deadLetter(first.id())).isEmpty();
    assertThat(store.count(Status.PENDING)).isEqualTo(3);
  }

  @Test
  void renewExtendsOnlyLeasesTheInstanceStillHolds() {
    add("a", 1);
    add("b", 1);
    add("c", 1);
    List<LeasedHead> heads = store.claim(claim("p", 10));
    clock.advance(LEASE);
    LeasedHead takenOver = store.claim(claim("q", 1)).get(0);
    store.record(List.of(new HeadOutcome.Delivered(heads.get(2).lease(), 1)));
    clock.advance(Duration.ofSeconds(1));

    List<Lease> lost =
        store.renew(
            "p",
            List.of(heads.get(0).lease(), heads.get(1).lease(), heads.get(2).lease()),
            Duration.ofSeconds(30));

    assertThat(takenOver.lease().aggregateId()).isEqualTo("a");
    assertThat(lost).containsExactly(heads.get(0).lease(), heads.get(2).lease());
    assertThat(head("b").availableAt()).isEqualTo(clock.instant().plusSeconds(30));
    assertThat(head("a").availableAt()).isEqualTo(T0.plus(LEASE).plus(LEASE));
    assertThat(store.renew("q", List.of(heads.get(1).lease()), LEASE))
        .as("another instance cannot renew it")
        .containsExactly(heads.get(1).lease());
  }

  @Test
  void statsCountWhatWaitsBehindEveryCursorAndTheOldestOfIt() {
    add("a", 3);
    clock.advance(Duration.ofMinutes(1));
    add("b", 1);
    LeasedHead a = store.claim(claim("p", 1)).get(0);
    store.record(List.of(new HeadOutcome.Delivered(a.lease(), 1)));

    OutboxStats stats = store.stats();

    assertThat(stats.pending()).isEqualTo(3);
    assertThat(stats.oldestPendingCreatedAt()).isEqualTo(T0);
    assertThat(stats.deadLetters()).isZero();
  }

  @Test
  void deleteDeliveredDeletesOnlyOldMessagesBehindTheCursorAndThenIdleHeads() {
    add("a", 3);
    add("b", 1);
    for (LeasedHead head : store.claim(claim("p", 10))) {
      long last = head.lease().aggregateId().equals("a") ? 2 : 1;
      store.record(List.of(new HeadOutcome.Delivered(head.lease(), last)));
    }
    clock.advance(Duration.ofMinutes(1));
    add("b", 1);
    LeasedHead b =
        store.claim(claim("p", 10)).stream()
            .filter(h -> h.lease().aggregateId().equals("b"))
            .findFirst()
            .orElseThrow();
    store.record(List.of(new HeadOutcome.Delivered(b.lease(), 2)));

    assertThat(store.deleteDelivered(T0.plusSeconds(1), 1)).as("bounded").isEqualTo(1);
    assertThat(store.deleteDelivered(T0.plusSeconds(1), 10)).isEqualTo(2);

    assertThat(store.count(Status.PUBLISHED)).as("b#2 is too young").isEqualTo(1);
    assertThat(store.count(Status.PENDING)).as("a#3 waits").isEqualTo(1);
    assertThat(store.head("Order", "a")).isPresent();
    assertThat(store.deleteDelivered(T0.plus(Duration.ofMinutes(2)), 10)).isEqualTo(1);
    assertThat(store.head("Order", "b")).as("idle and empty").isEmpty();
    assertThat(store.add("Order", "b", "e").seq()).isEqualTo(1);
  }

  @Test
  void withoutAHoldADeadLetterMovesTheCursorPastItAndTheHeadGoesOn() {
    List<OutboxMessage> messages = add("a", 3);
    LeasedHead held = store.claim(claim("p", 1)).get(0);

    List<LeasedHead> next = store.recordAndClaim(List.of(dead(held, false)), claim("p", 10));

    assertThat(store.deadLetter(messages.get(0).id()).orElseThrow().message().attempts())
        .isEqualTo(3);
    assertThat(store.row(messages.get(0).id())).as("moved to the dead letters").isEmpty();
    assertThat(head("a").deliveredSeq()).isEqualTo(1);
    assertThat(next).extracting(LeasedHead::lease).containsExactly(held.lease());
    assertThat(seqs(next.get(0))).containsExactly(2L, 3L);
    assertThat(next.get(0).messages().get(0).attempts()).isZero();
  }

  @Test
  void withAHoldTheCursorWaitsAtTheDeadLetterAndTheReplayDeliversItInPlace() {
    List<OutboxMessage> messages = add("a", 2);
    LeasedHead held = store.claim(claim("p", 1)).get(0);
    assertThat(store.recordAndClaim(List.of(dead(held, true)), claim("p", 10))).isEmpty();
    assertThat(head("a").held()).isTrue();
    assertThat(head("a").deliveredSeq()).isZero();
    assertThat(store.stats().deadLetters()).isEqualTo(1);

    assertThat(store.replayDeadLetters(List.of(messages.get(0).id()))).isEqualTo(1);

    assertThat(head("a").held()).isFalse();
    assertThat(head("a").writeSeq()).as("nothing appended").isEqualTo(2);
    LeasedHead again = store.claim(claim("p", 10)).get(0);
    assertThat(again.messages())
        .extracting(OutboxMessage::id)
        .first()
        .isEqualTo(messages.get(0).id());
    assertThat(again.messages().get(0).attempts()).isZero();
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
  }

  @Test
  void aReplayWithoutAHoldAppendsTheMessageAgainWithANewSeqAndTheSameId() {
    List<OutboxMessage> messages = add("a", 2);
    LeasedHead held = store.claim(claim("p", 1)).get(0);
    store.record(List.of(dead(held, false)));

    store.replayDeadLetters(List.of(messages.get(0).id()));

    LeasedHead again = store.claim(claim("p", 10)).get(0);
    assertThat(again.messages())
        .extracting(OutboxMessage::id)
        .containsExactly(messages.get(1).id(), messages.get(0).id());
    assertThat(seqs(again)).containsExactly(2L, 3L);
  }

  @Test
  void purgingTheDeadLetterAHeadIsHeldOnMovesItsCursorPastIt() {
    List<OutboxMessage> messages = add("a", 2);
    LeasedHead held = store.claim(claim("p", 1)).get(0);
    store.record(List.of(dead(held, true)));

    assertThat(store.purgeDeadLetters(List.of(messages.get(0).id()))).isEqualTo(1);

    assertThat(head("a").held()).isFalse();
    assertThat(head("a").deliveredSeq()).isEqualTo(1);
    assertThat(seqs(store.claim(claim("p", 10)).get(0))).containsExactly(2L);
    assertThat(store.purgeDeadLetters(List.of(messages.get(0).id()))).isZero();
  }
}
