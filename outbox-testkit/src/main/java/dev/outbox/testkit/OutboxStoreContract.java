package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link OutboxStore} shows, whatever keeps its rows: one head per aggregate
 * with a gap-free {@code seq}, claims that lease each head to one processor at a time and read its
 * messages in seq order, continuations, fencing of stale holders, lease expiry and takeover,
 * retries with their attempts and delay, dead letters with and without the hold, replay and purge,
 * cleanup, counts and stats. A store's test extends it ({@code PostgresOutboxStoreIT}, the
 * in-memory store's {@code InMemoryOutboxStoreContractTest}) and implements the hooks; the
 * contract's tests then run against that store. What only a database shows (row locks across
 * connections, query plans, the schema) stays in the store's own tests, which may use the helpers
 * here ({@link #write}, {@link #claim}, {@link #delivered}).
 *
 * <p>One instance runs all tests ({@link TestInstance.Lifecycle#PER_CLASS}), so a subclass may open
 * its store in a non-static {@code @BeforeAll}; the store is {@linkplain #clear() emptied} before
 * each test. Messages are written through {@link #commit(List)}, the store's writer, and inspected
 * through {@link #heads()} and {@link #messages()}, its tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
public abstract class OutboxStoreContract extends OutboxStoreFixture {

  @BeforeEach
  void startEmpty() {
    clear();
  }

  @Test
  void claimLeasesEachDueHeadWithANewTokenAndReadsItsNextMessagesInSeqOrder() {
    List<String> aggregates = write(3, 2);

    List<LeasedHead> first = claim("a", 10);

    assertThat(first).extracting(head -> head.lease().aggregateId()).hasSameElementsAs(aggregates);
    for (LeasedHead head : first) {
      assertThat(head.messages()).extracting(OutboxMessage::seq).containsExactly(1L, 2L);
      assertThat(head.messages())
          .extracting(OutboxMessage::eventType)
          .containsExactly(FIRST_EVENT_TYPE, NEXT_EVENT_TYPE);
      assertThat(head.lease().token()).isEqualTo(head(head.lease().aggregateId()).leaseToken());
    }
    assertThat(heads()).extracting(StoredHead::claimedBy).containsOnly("a");
    assertThat(claim("b", 10)).as("leased heads are nobody else's").isEmpty();
  }

  @Test
  void aBatchSharesItsLimitAmongTheHeadsItClaims() {
    write(2, 30);

    List<LeasedHead> claimed = claim("a", 10);

    assertThat(claimed).hasSize(2);
    assertThat(claimed).allSatisfy(head -> assertThat(head.messages()).hasSize(5));
  }

  @Test
  void aRetryKeepsItsHeadUntilItsTimeWhileOtherAggregatesGoOn() {
    List<String> aggregates = write(2, 2);
    List<LeasedHead> claimed = claim("a", 10);
    LeasedHead failing = headOf(claimed, aggregates.get(0));
    LeasedHead other = headOf(claimed, aggregates.get(1));

    store()
        .record(
            List.of(
                new HeadOutcome.Retry(failing.lease(), 0, 1, "down", Duration.ofSeconds(2)),
                new HeadOutcome.Released(other.lease(), 0)));

    List<LeasedHead> others = claim("b", 10);
    assertThat(others)
        .as("the failed aggregate waits; the released one is claimed again at once")
        .extracting(head -> head.lease().aggregateId())
        .containsExactly(aggregates.get(1));
    assertThat(head(aggregates.get(0)).attempts()).isEqualTo(1);
    assertThat(head(aggregates.get(0)).lastError()).isEqualTo("down");
    elapse(Duration.ofSeconds(2));
    List<LeasedHead> retried = claimOnceDue("c");
    assertThat(retried)
        .extracting(head -> head.lease().aggregateId())
        .containsExactly(failing.lease().aggregateId());
    assertThat(retried.get(0).messages()).extracting(OutboxMessage::attempts).containsExactly(1, 0);
  }

  @Test
  void aDeliveredHeadWithMoreMessagesStaysLeasedAndIsReadOnWithoutAClaim() {
    List<String> aggregates = write(1, 3);
    List<LeasedHead> first = claim("a", 2);
    assertThat(messages(first)).extracting(OutboxMessage::seq).containsExactly(1L, 2L);

    List<LeasedHead> next = store().recordAndClaim(delivered(first), readOn("a"));

    assertThat(next)
        .singleElement()
        .satisfies(
            head -> {
              assertThat(head.lease()).isEqualTo(first.get(0).lease());
              assertThat(head.messages()).extracting(OutboxMessage::seq).containsExactly(3L);
            });
    assertThat(messages()).extracting(StoredMessage::delivered).containsExactly(true, true, false);
    assertThat(claim("b", 10)).as("the holder keeps the rest").isEmpty();

    assertThat(store().recordAndClaim(delivered(next), readOn("a"))).isEmpty();
    StoredHead idle = head(aggregates.get(0));
    assertThat(idle.deliveredSeq()).isEqualTo(3);
    assertThat(idle.claimedBy()).as("released once nothing is left").isNull();
  }

  @Test
  void aContinuedHeadWhoseLeaseRunsShortIsRenewedInFull() {
    String aggregate = write(1, 3).get(0);
    List<LeasedHead> first = claim("a", 1, Duration.ofSeconds(2));
    Instant before = head(aggregate).availableAt();

    List<LeasedHead> next = store().recordAndClaim(delivered(first), readOn("a"));

    assertThat(next).singleElement().extracting(LeasedHead::lease).isEqualTo(first.get(0).lease());
    assertThat(Duration.between(before, head(aggregate).availableAt()))
        .as("2 s left, less than the kept part of the lease: renewed to the whole lease")
        .isGreaterThan(readOn("a").keptLease().minusSeconds(2));
  }

  @Test
  void aStaleHolderChangesNothingOnceItsLeaseWasTakenOver() {
    List<String> aggregates = write(1, 2);
    List<LeasedHead> lost = claim("crashed", 10, Duration.ofSeconds(1));
    assertThat(claim("survivor", 10)).as("still leased").isEmpty();

    elapse(Duration.ofSeconds(1));
    List<LeasedHead> takenOver = claimOnceDue("survivor");
    assertThat(takenOver.get(0).lease().token()).isGreaterThan(lost.get(0).lease().token());
    assertThat(messages(takenOver))
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(messages(lost).stream().map(OutboxMessage::id).toList());

    store().record(delivered(lost));
    store()
        .record(List.of(new HeadOutcome.Retry(lost.get(0).lease(), 0, 1, "late", Duration.ZERO)));
    assertThat(store().renew("crashed", List.of(lost.get(0).lease()), LEASE))
        .containsExactly(lost.get(0).lease());

    StoredHead head = head(aggregates.get(0));
    assertThat(head.deliveredSeq()).isZero();
    assertThat(head.attempts()).isZero();
    assertThat(head.claimedBy()).isEqualTo("survivor");
    store().record(delivered(takenOver));
    assertThat(head(aggregates.get(0)).deliveredSeq()).isEqualTo(2);
  }

  @Test
  void aWriteAfterTheHolderReleasedTheHeadIsDueForTheNextClaim() {
    String aggregate = write(1, 1).get(0);
    List<LeasedHead> first = claim("a", 10);
    assertThat(store().recordAndClaim(delivered(first), readOn("a"))).isEmpty();

    append(aggregate, "after");

    assertThat(messages(claim("b", 10))).extracting(OutboxMessage::seq).containsExactly(2L);
  }

  @Test
  void anErrorTextWithANulCharacterIsRecorded() {
    String aggregate = write(1, 1).get(0);
    LeasedHead head = claim("a", 10).get(0);

    store()
        .record(
            List.of(
                new HeadOutcome.Retry(
                    head.lease(), 0, 1, "broker said \u0000no", Duration.ofMinutes(1))));

    assertThat(head(aggregate).attempts()).isEqualTo(1);
  }

  @Test
  void concurrentClaimsNeverReturnTheSameHead() throws Exception {
    write(200, 1);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<List<OutboxMessage>>> claims = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String instance = "i" + i;
        claims.add(
            () -> {
              List<OutboxMessage> mine = new ArrayList<>();
              List<LeasedHead> batch;
              while (!(batch = claim(instance, 7)).isEmpty()) {
                mine.addAll(messages(batch));
              }
              return mine;
            });
      }
      List<UUID> claimed = new ArrayList<>();
      for (Future<List<OutboxMessage>> result : pool.invokeAll(claims)) {
        result.get().forEach(m -> claimed.add(m.id()));
      }
      assertThat(claimed).hasSize(200).doesNotHaveDuplicates();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aDeadLetterWithoutHoldMovesTheMessageAndTheCursorGoesOn() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);

    List<LeasedHead> next =
        store().recordAndClaim(List.of(deadLettered(head, dead, 3, false)), readOn("a"));

    assertThat(messages(next)).extracting(OutboxMessage::seq).containsExactly(2L);
    assertThat(messages()).extracting(StoredMessage::seq).containsExactly(2L);
    assertThat(store().findDeadLetters(DeadLetterQuery.all()))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.message().id()).isEqualTo(dead.id());
              assertThat(d.message().seq()).isEqualTo(1);
              assertThat(d.message().attempts()).isEqualTo(3);
              assertThat(d.lastError()).isEqualTo("rejected");
            });
    assertThat(head(aggregate).deliveredSeq()).isEqualTo(1);
  }

  @Test
  void eachMessageNamesTheSeqPublishedBeforeItInTheEpochOfItsHead() {
    write(1, 3);

    List<OutboxMessage> read = messages(claim("a", 10));

    assertThat(read).extracting(OutboxMessage::seq).containsExactly(1L, 2L, 3L);
    assertThat(read).extracting(OutboxMessage::prevSeq).containsExactly(0L, 1L, 2L);
    assertThat(read)
        .extracting(OutboxMessage::epoch)
        .doesNotContain(0L)
        .containsOnly(read.get(0).epoch());
  }

  @Test
  void theMessageAfterADeadLetterWithoutHoldNamesTheLastSeqPublishedSoConsumersDoNotWaitForIt() {
    String aggregate = write(1, 3).get(0);
    LeasedHead first = claim("a", 1).get(0);
    List<LeasedHead> second = store().recordAndClaim(delivered(List.of(first)), readOn("a"));
    OutboxMessage dead = messages(second).get(0);
    assertThat(dead.seq()).isEqualTo(2);

    List<LeasedHead> third =
        store().recordAndClaim(List.of(deadLettered(second.get(0), dead, 3, false)), readOn("a"));

    assertThat(messages(third))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.seq()).isEqualTo(3);
              assertThat(m.prevSeq()).as("seq 2 will never be published").isEqualTo(1);
            });
    store().record(delivered(third));
    append(aggregate, "after");
    assertThat(messages(claim("b", 10)))
        .as("a later claim of the idle head")
        .singleElement()
        .satisfies(m -> assertThat(m.prevSeq()).isEqualTo(3));
  }

  @Test
  void aMessageRetriedAfterADeadLetterWithoutHoldStillNamesTheSeqBeforeTheDeadLetter() {
    write(1, 2);
    LeasedHead head = claim("a", 1).get(0);
    List<LeasedHead> next =
        store()
            .recordAndClaim(
                List.of(deadLettered(head, head.messages().get(0), 3, false)), readOn("a"));
    OutboxMessage failing = messages(next).get(0);
    store()
        .record(
            List.of(
                new HeadOutcome.Retry(next.get(0).lease(), 1, 1, "down", Duration.ofMillis(1))));
    elapse(Duration.ofMillis(5));

    assertThat(messages(claimOnceDue("b")))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.id()).isEqualTo(failing.id());
              assertThat(m.prevSeq()).isZero();
            });
  }

  @Test
  void anAggregateWrittenAgainAfterCleanupDeletedItsHeadStartsAtSeqOneInALaterEpoch() {
    String aggregate = write(1, 1).get(0);
    List<LeasedHead> claimed = claim("a", 10);
    long firstEpoch = messages(claimed).get(0).epoch();
    store().record(delivered(claimed));
    assertThat(store().deleteDelivered(now().plusSeconds(60), 10)).isEqualTo(1);
    assertThat(heads()).as("the idle head went with its last message").isEmpty();
    elapse(Duration.ofMillis(2));

    append(aggregate, "again");

    assertThat(messages(claim("b", 10)))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.seq()).isEqualTo(1);
              assertThat(m.prevSeq()).isZero();
              assertThat(m.epoch())
                  .as("(epoch, seq) only grows per aggregate")
                  .isGreaterThan(firstEpoch);
            });
  }

  @Test
  void aDeadLetterWithHoldStopsItsAggregateUntilTheReplayDeliversItInPlace() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);
    store().record(List.of(deadLettered(head, dead, 3, true)));

    assertThat(claim("a", 10)).as("held at the dead letter").isEmpty();
    assertThat(head(aggregate).held()).isTrue();
    assertThat(messages()).extracting(StoredMessage::delivered).containsExactly(false, false);

    assertThat(store().replayDeadLetters(List.of(dead.id()))).isEqualTo(1);

    assertThat(store().countDeadLetters(DeadLetterQuery.all())).isZero();
    List<OutboxMessage> again = messages(claim("b", 10));
    assertThat(again).extracting(OutboxMessage::id).startsWith(dead.id());
    assertThat(again).extracting(OutboxMessage::seq).containsExactly(1L, 2L);
    assertThat(again.get(0).attempts()).isZero();
  }

  @Test
  void aReplayedDeadLetterOfAnAggregateThatWentOnIsAppendedWithANewSeqAndItsId() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);
    List<LeasedHead> rest =
        store().recordAndClaim(List.of(deadLettered(head, dead, 1, false)), readOn("a"));
    store().record(delivered(rest));

    assertThat(store().replayDeadLetters(List.of(dead.id(), UUID.randomUUID()))).isEqualTo(1);

    List<OutboxMessage> replayed = messages(claim("b", 10));
    assertThat(replayed)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.id()).isEqualTo(dead.id());
              assertThat(m.seq()).isEqualTo(3);
              assertThat(m.payload()).isEqualTo(dead.payload());
            });
    assertThat(head(aggregate).writeSeq()).isEqualTo(3);
  }

  @Test
  void purgingTheDeadLetterAnAggregateIsHeldOnLetsItGoOnPastIt() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);
    store().record(List.of(deadLettered(head, dead, 1, true)));

    assertThat(store().purgeDeadLetters(List.of(dead.id(), UUID.randomUUID()))).isEqualTo(1);

    assertThat(store().countDeadLetters(DeadLetterQuery.all())).isZero();
    assertThat(messages(claim("b", 10))).extracting(OutboxMessage::seq).containsExactly(2L);
    assertThat(messages()).extracting(StoredMessage::seq).containsExactly(2L);
    assertThat(head(aggregate).held()).isFalse();
  }

  @Test
  void deadLettersAreFilteredAndPaged() {
    write(3, 1);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    List<LeasedHead> heads = claim("a", 10);
    List<HeadOutcome> outcomes = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      OutboxMessage message = heads.get(i).messages().get(0);
      outcomes.add(
          new HeadOutcome.DeadLettered(
              heads.get(i).lease(), 0, message.id(), 1, 1, "e" + i, now.plusSeconds(i), false));
    }
    store().record(outcomes);

    assertThat(store().countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);
    assertThat(store().findDeadLetters(DeadLetterQuery.all().page(1, 1)))
        .extracting(DeadLetter::lastError)
        .containsExactly("e1");
    assertThat(store().countDeadLetters(DeadLetterQuery.all().since(now.plusSeconds(1))))
        .isEqualTo(2);
    assertThat(store().countDeadLetters(DeadLetterQuery.all().until(now.plusSeconds(1))))
        .isEqualTo(1);
    assertThat(
            store()
                .findDeadLetters(
                    DeadLetterQuery.all()
                        .aggregate(AGGREGATE_TYPE, heads.get(2).lease().aggregateId())
                        .eventType(FIRST_EVENT_TYPE)))
        .extracting(d -> d.message().id())
        .containsExactly(heads.get(2).messages().get(0).id());
    assertThat(store().countDeadLetters(DeadLetterQuery.all().eventType("nope"))).isZero();
  }

  @Test
  void deadLettersAreFoundByErrorTextTakingWildcardsLiterallyAndByIdWithTheirPayload() {
    write(3, 1);
    List<LeasedHead> heads = claim("a", 10);
    String[] errors = {"Broker said 100% FULL", "broker said 1000 full", "timed_out"};
    List<HeadOutcome> outcomes = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      OutboxMessage message = heads.get(i).messages().get(0);
      outcomes.add(
          new HeadOutcome.DeadLettered(
              heads.get(i).lease(), 0, message.id(), 1, 1, errors[i], Instant.now(), false));
    }
    store().record(outcomes);

    assertThat(store().findDeadLetters(DeadLetterQuery.all().errorContains("100% full")))
        .as("case ignored, %% taken literally")
        .extracting(DeadLetter::lastError)
        .containsExactly(errors[0]);
    assertThat(store().countDeadLetters(DeadLetterQuery.all().errorContains("SAID"))).isEqualTo(2);
    assertThat(store().countDeadLetters(DeadLetterQuery.all().errorContains("d_o"))).isEqualTo(1);
    assertThat(store().countDeadLetters(DeadLetterQuery.all().errorContains("timed%out"))).isZero();

    OutboxMessage second = heads.get(1).messages().get(0);
    assertThat(store().findDeadLetter(second.id()))
        .hasValueSatisfying(
            d -> {
              assertThat(d.message().payload()).isEqualTo(second.payload());
              assertThat(d.message().headers()).isEqualTo(second.headers());
              assertThat(d.lastError()).isEqualTo(errors[1]);
            });
    assertThat(store().findDeadLetter(UUID.randomUUID())).isEmpty();
  }

  @Test
  void aggregateCountsTellRetryingWaitingForTheBrokerHeldAndLeasedPerInstance() {
    write(6, 2);
    List<LeasedHead> byA = claim("instance-a", 4);
    claim("instance-b", 10);
    assertThat(store().aggregateCounts().leasesByInstance())
        .containsExactly(entry("instance-a", 4L), entry("instance-b", 2L));

    OutboxMessage first = byA.get(0).messages().get(0);
    store()
        .record(
            List.of(
                new HeadOutcome.Retry(byA.get(1).lease(), 0, 1, "down", Duration.ofMinutes(5)),
                deadLettered(byA.get(0), first, 3, true),
                new HeadOutcome.Released(byA.get(2).lease(), 0),
                new HeadOutcome.Retry(
                    byA.get(3).lease(),
                    0,
                    0,
                    AggregateCounts.BROKER_UNAVAILABLE + "connection refused",
                    Duration.ofMinutes(5))));

    AggregateCounts counts = store().aggregateCounts();
    assertThat(counts.retrying()).as("a broker outage counts no attempt").isEqualTo(1);
    assertThat(counts.waitingForBroker()).isEqualTo(1);
    assertThat(counts.held()).isEqualTo(1);
    assertThat(counts.leasesByInstance()).containsExactly(entry("instance-b", 2L));
  }

  @Test
  void cleanupDeletesDeliveredRowsOlderThanTheCutoffInBoundedBatchesThenIdleHeads() {
    write(5, 1);
    List<String> pending = write(1, 1);
    List<LeasedHead> heads = claim("a", 10);
    store()
        .record(
            delivered(
                heads.stream()
                    .filter(head -> !head.lease().aggregateId().equals(pending.get(0)))
                    .toList()));
    store().record(List.of(new HeadOutcome.Released(headOf(heads, pending.get(0)).lease(), 0)));
    Instant later = now().plusSeconds(60);

    assertThat(store().deleteDelivered(later, 3)).isEqualTo(3);
    assertThat(heads()).as("heads wait until a short batch").hasSize(6);
    assertThat(store().deleteDelivered(later, 3)).isEqualTo(2);
    assertThat(store().deleteDelivered(later, 3)).isZero();

    assertThat(messages())
        .as("an undelivered row is never deleted")
        .extracting(StoredMessage::aggregateId)
        .containsExactly(pending.get(0));
    assertThat(heads())
        .as("idle heads with no row left are deleted")
        .extracting(StoredHead::aggregateId)
        .containsExactly(pending.get(0));
    assertThat(store().deleteDelivered(now().minusSeconds(60), 10)).isZero();
  }

  @Test
  void cdcCleanupDeletesEveryRowOlderThanTheCutoffInBoundedBatchesAndKeepsTheHeads() {
    List<String> delivered = write(2, 1);
    store().record(delivered(claim("a", 10)));
    List<String> pending = write(3, 1);
    Instant later = now().plusSeconds(60);

    assertThat(store().deleteWritten(now().minusSeconds(60), 10))
        .as("nothing was written before the cutoff")
        .isZero();
    assertThat(store().deleteWritten(later, 3)).isEqualTo(3);
    assertThat(store().deleteWritten(later, 3)).isEqualTo(2);
    assertThat(store().deleteWritten(later, 3)).isZero();

    assertThat(messages()).as("pending or not, the log has carried them").isEmpty();
    assertThat(heads())
        .as("every head stays, holding its aggregate's last seq")
        .extracting(StoredHead::aggregateId)
        .containsExactlyInAnyOrderElementsOf(
            Stream.concat(delivered.stream(), pending.stream()).toList());
  }

  @Test
  void renewExtendsOnlyTheLeasesStillHeld() {
    write(2, 1);
    List<LeasedHead> heads = claim("a", 10, Duration.ofSeconds(2));
    Lease kept = heads.get(0).lease();
    Lease released = heads.get(1).lease();
    store().record(List.of(new HeadOutcome.Released(released, 0)));

    assertThat(store().renew("a", List.of(kept, released), LEASE)).containsExactly(released);
    assertThat(store().renew("b", List.of(kept), LEASE))
        .as("another instance's")
        .containsExactly(kept);

    elapse(Duration.ofSeconds(3));
    assertThat(claim("c", 10))
        .as("the renewed lease outlived its first two seconds")
        .extracting(head -> head.lease().aggregateId())
        .containsExactly(released.aggregateId());
  }

  @Test
  void statsCountTheMessagesBehindTheCursorsAndTheOldestOfThem() {
    assertThat(store().stats()).isEqualTo(new OutboxStats(0, null, 0));
    write(2, 3);
    List<LeasedHead> heads = claim("a", 2);
    store().record(List.of(new HeadOutcome.Delivered(heads.get(0).lease(), 1)));

    OutboxStats stats = store().stats();

    assertThat(stats.pending()).isEqualTo(5);
    assertThat(stats.oldestPendingCreatedAt()).isNotNull();
    assertThat(stats.deadLetters()).isZero();
  }

  @Test
  void headersSurviveTheRoundTrip() {
    String aggregate = nextAggregateId();
    Map<String, String> headers = Map.of("correlation-id", "c-" + aggregate, "tenant", "acme");
    commit(
        List.of(
            new NewMessage(AGGREGATE_TYPE, aggregate, FIRST_EVENT_TYPE, "placed", Map.of()),
            new NewMessage(AGGREGATE_TYPE, aggregate, "order.cancelled", "because", headers)));

    List<OutboxMessage> claimed = messages(claim("a", 10));

    assertThat(claimed.get(1).headers()).isEqualTo(headers);
    assertThat(claimed.get(0).headers()).isEmpty();
    assertThat(claimed).extracting(OutboxMessage::contentType).containsOnly(OutboxMessage.JSON);
  }
}
