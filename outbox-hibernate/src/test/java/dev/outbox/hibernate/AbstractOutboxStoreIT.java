package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.TestEvents;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.OutboxTable.Head;
import dev.outbox.jdbc.testing.OutboxTable.Row;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The JDBC outbox store on a real database: heads and cursors, claims, continuations, fencing, dead
 * letters, cleanup.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOutboxStoreIT {

  static final String TABLE = "st_outbox";
  static final String DEAD_LETTERS = "st_dead_letters";
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final AtomicLong IDS = new AtomicLong(1);

  final TestDatabase database;
  SessionFactory emf;
  OutboxStore store;
  OutboxTable outbox;

  AbstractOutboxStoreIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void startPersistenceUnit() {
    database.assumeReachable();
    OutboxTable.drop(database.dataSource(), TABLE, DEAD_LETTERS);
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(TABLE)
            .deadLetterTable(DEAD_LETTERS)
            .createSchema(true)
            .build();
    emf = Emfs.create(database.dataSource(), options);
    store = HibernateOutbox.store(emf);
    outbox = new OutboxTable(database.dataSource(), TABLE);
  }

  @AfterAll
  void close() {
    if (emf != null) {
      emf.close();
    }
  }

  @BeforeEach
  void empty() {
    outbox.clear();
    OutboxTable.deleteAll(database.dataSource(), DEAD_LETTERS);
  }

  /**
   * Writes {@code events} events on each of {@code aggregates} new aggregates in one transaction.
   */
  List<String> write(int aggregates, int events) {
    List<String> ids = new ArrayList<>();
    emf.inTransaction(
        session -> {
          for (int a = 0; a < aggregates; a++) {
            long id = IDS.getAndIncrement();
            PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
            for (int e = 1; e < events; e++) {
              order.announce(new TestEvents.Noted("event " + e));
            }
            session.persist(order);
            ids.add(Long.toString(id));
          }
        });
    return ids;
  }

  /** Adds one event to an existing aggregate. */
  void append(String aggregateId, String text) {
    emf.inTransaction(
        session ->
            session
                .find(PurchaseOrder.class, Long.parseLong(aggregateId))
                .announce(new TestEvents.Noted(text)));
  }

  List<LeasedHead> claim(String instance, int limit) {
    return claim(instance, limit, LEASE);
  }

  List<LeasedHead> claim(String instance, int limit, Duration lease) {
    return store.claim(new ClaimRequest(instance, limit, lease, true));
  }

  static ClaimRequest readOn(String instance) {
    return new ClaimRequest(instance, 100, LEASE, false);
  }

  static List<OutboxMessage> messages(List<LeasedHead> heads) {
    return heads.stream().flatMap(head -> head.messages().stream()).toList();
  }

  static LeasedHead headOf(List<LeasedHead> heads, String aggregateId) {
    return heads.stream()
        .filter(head -> head.lease().aggregateId().equals(aggregateId))
        .findFirst()
        .orElseThrow();
  }

  static HeadOutcome delivered(LeasedHead head) {
    List<OutboxMessage> messages = head.messages();
    return new HeadOutcome.Delivered(head.lease(), messages.get(messages.size() - 1).seq());
  }

  static List<HeadOutcome> delivered(List<LeasedHead> heads) {
    return heads.stream().map(AbstractOutboxStoreIT::delivered).toList();
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
          .containsExactly("order.placed", "Noted");
      assertThat(head.lease().token())
          .isEqualTo(outbox.head("PurchaseOrder", head.lease().aggregateId()).leaseToken());
    }
    assertThat(outbox.heads()).extracting(Head::claimedBy).containsOnly("a");
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
  void aHeadAnotherTransactionHoldsIsSkippedNotWaitedFor() throws Exception {
    List<String> aggregates = write(2, 3);
    String held = aggregates.get(0);
    String free = aggregates.get(1);

    try (Connection other = database.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement lock =
          other.prepareStatement(
              "SELECT write_seq FROM "
                  + OutboxTable.headTable(TABLE)
                  + " WHERE aggregate_type = 'PurchaseOrder' AND aggregate_id = ? FOR UPDATE")) {
        lock.setString(1, held);
        lock.executeQuery().close();
      }

      List<LeasedHead> claimed = claim("a", 10);

      assertThat(claimed).extracting(head -> head.lease().aggregateId()).containsExactly(free);
      assertThat(outbox.head("PurchaseOrder", held).claimedBy()).isNull();
      other.rollback();
    }
    assertThat(claim("b", 10)).extracting(head -> head.lease().aggregateId()).containsExactly(held);
  }

  @Test
  void aRetryKeepsItsHeadUntilItsTimeWhileOtherAggregatesGoOn() {
    List<String> aggregates = write(2, 2);
    List<LeasedHead> claimed = claim("a", 10);
    LeasedHead failing = headOf(claimed, aggregates.get(0));
    LeasedHead other = headOf(claimed, aggregates.get(1));

    store.record(
        List.of(
            new HeadOutcome.Retry(failing.lease(), 0, 1, "down", Duration.ofSeconds(2)),
            new HeadOutcome.Released(other.lease(), 0)));

    List<LeasedHead> others = claim("b", 10);
    assertThat(others)
        .as("the failed aggregate waits; the released one is claimed again at once")
        .extracting(head -> head.lease().aggregateId())
        .containsExactly(aggregates.get(1));
    assertThat(outbox.head("PurchaseOrder", aggregates.get(0)).attempts()).isEqualTo(1);
    assertThat(outbox.head("PurchaseOrder", aggregates.get(0)).lastError()).isEqualTo("down");
    List<LeasedHead> retried = new ArrayList<>();
    await().atMost(Duration.ofSeconds(15)).until(() -> retried.addAll(claim("c", 10)));
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

    List<LeasedHead> next = store.recordAndClaim(delivered(first), readOn("a"));

    assertThat(next)
        .singleElement()
        .satisfies(
            head -> {
              assertThat(head.lease()).isEqualTo(first.get(0).lease());
              assertThat(head.messages()).extracting(OutboxMessage::seq).containsExactly(3L);
            });
    assertThat(outbox.rows())
        .extracting(Row::status)
        .containsExactly("PUBLISHED", "PUBLISHED", "PENDING");
    assertThat(claim("b", 10)).as("the holder keeps the rest").isEmpty();

    assertThat(store.recordAndClaim(delivered(next), readOn("a"))).isEmpty();
    Head idle = outbox.head("PurchaseOrder", aggregates.get(0));
    assertThat(idle.deliveredSeq()).isEqualTo(3);
    assertThat(idle.claimedBy()).as("released once nothing is left").isNull();
  }

  @Test
  void aContinuedHeadWhoseLeaseRunsShortIsRenewedInFull() {
    String aggregate = write(1, 3).get(0);
    List<LeasedHead> first = claim("a", 1, Duration.ofSeconds(2));
    Instant before = outbox.availableAt("PurchaseOrder", aggregate);

    List<LeasedHead> next = store.recordAndClaim(delivered(first), readOn("a"));

    assertThat(next).singleElement().extracting(LeasedHead::lease).isEqualTo(first.get(0).lease());
    assertThat(Duration.between(before, outbox.availableAt("PurchaseOrder", aggregate)))
        .as("2 s left, less than the kept part of the lease: renewed to the whole lease")
        .isGreaterThan(readOn("a").keptLease().minusSeconds(2));
  }

  @Test
  void aStaleHolderChangesNothingOnceItsLeaseWasTakenOver() {
    List<String> aggregates = write(1, 2);
    List<LeasedHead> lost = claim("crashed", 10, Duration.ofSeconds(1));
    assertThat(claim("survivor", 10)).as("still leased").isEmpty();

    List<LeasedHead> takenOver = new ArrayList<>();
    await().atMost(Duration.ofSeconds(15)).until(() -> takenOver.addAll(claim("survivor", 10)));
    assertThat(takenOver.get(0).lease().token()).isGreaterThan(lost.get(0).lease().token());
    assertThat(messages(takenOver))
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(messages(lost).stream().map(OutboxMessage::id).toList());

    store.record(delivered(lost));
    store.record(List.of(new HeadOutcome.Retry(lost.get(0).lease(), 0, 1, "late", Duration.ZERO)));
    assertThat(store.renew("crashed", List.of(lost.get(0).lease()), LEASE))
        .containsExactly(lost.get(0).lease());

    Head head = outbox.head("PurchaseOrder", aggregates.get(0));
    assertThat(head.deliveredSeq()).isZero();
    assertThat(head.attempts()).isZero();
    assertThat(head.claimedBy()).isEqualTo("survivor");
    store.record(delivered(takenOver));
    assertThat(outbox.head("PurchaseOrder", aggregates.get(0)).deliveredSeq()).isEqualTo(2);
  }

  @Test
  void aWriterCommittingWhileTheHolderRecordsIsReadOnAfterItsCommit() throws Exception {
    String aggregate = write(1, 1).get(0);
    List<LeasedHead> first = claim("a", 10);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Session session = emf.openSession()) {
      Transaction writer = session.beginTransaction();
      session
          .find(PurchaseOrder.class, Long.parseLong(aggregate))
          .announce(new TestEvents.Noted("late"));
      session.flush(); // the writer now holds the head's row lock until it commits

      Future<List<LeasedHead>> recording =
          pool.submit(() -> store.recordAndClaim(delivered(first), readOn("a")));
      Thread.sleep(300); // give the record time to reach the lock; it must wait, not skip
      assertThat(recording).isNotDone();
      writer.commit();

      assertThat(recording.get(30, TimeUnit.SECONDS))
          .as("the record saw the committed write and kept the head for it")
          .singleElement()
          .satisfies(
              head ->
                  assertThat(head.messages()).extracting(OutboxMessage::seq).containsExactly(2L));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aWriteAfterTheHolderReleasedTheHeadIsDueForTheNextClaim() {
    String aggregate = write(1, 1).get(0);
    List<LeasedHead> first = claim("a", 10);
    assertThat(store.recordAndClaim(delivered(first), readOn("a"))).isEmpty();

    append(aggregate, "after");

    assertThat(messages(claim("b", 10))).extracting(OutboxMessage::seq).containsExactly(2L);
  }

  @Test
  void anErrorTextWithANulCharacterIsRecorded() {
    String aggregate = write(1, 1).get(0);
    LeasedHead head = claim("a", 10).get(0);

    store.record(
        List.of(
            new HeadOutcome.Retry(
                head.lease(), 0, 1, "broker said \u0000no", Duration.ofMinutes(1))));

    assertThat(outbox.head("PurchaseOrder", aggregate).attempts()).isEqualTo(1);
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
        store.recordAndClaim(
            List.of(
                new HeadOutcome.DeadLettered(
                    head.lease(), 0, dead.id(), dead.seq(), 3, "rejected", Instant.now(), false)),
            readOn("a"));

    assertThat(messages(next)).extracting(OutboxMessage::seq).containsExactly(2L);
    assertThat(outbox.rows()).extracting(Row::seq).containsExactly(2L);
    assertThat(store.findDeadLetters(DeadLetterQuery.all()))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.message().id()).isEqualTo(dead.id());
              assertThat(d.message().seq()).isEqualTo(1);
              assertThat(d.message().attempts()).isEqualTo(3);
              assertThat(d.lastError()).isEqualTo("rejected");
            });
    assertThat(outbox.head("PurchaseOrder", aggregate).deliveredSeq()).isEqualTo(1);
  }

  @Test
  void aDeadLetterWithHoldStopsItsAggregateUntilTheReplayDeliversItInPlace() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);
    store.record(
        List.of(
            new HeadOutcome.DeadLettered(
                head.lease(), 0, dead.id(), dead.seq(), 3, "rejected", Instant.now(), true)));

    assertThat(claim("a", 10)).as("held at the dead letter").isEmpty();
    assertThat(outbox.head("PurchaseOrder", aggregate).held()).isTrue();
    assertThat(outbox.rows()).extracting(Row::status).containsExactly("PENDING", "PENDING");

    assertThat(store.replayDeadLetters(List.of(dead.id()))).isEqualTo(1);

    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
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
        store.recordAndClaim(
            List.of(
                new HeadOutcome.DeadLettered(
                    head.lease(), 0, dead.id(), dead.seq(), 1, "rejected", Instant.now(), false)),
            readOn("a"));
    store.record(delivered(rest));

    assertThat(store.replayDeadLetters(List.of(dead.id(), UUID.randomUUID()))).isEqualTo(1);

    List<OutboxMessage> replayed = messages(claim("b", 10));
    assertThat(replayed)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.id()).isEqualTo(dead.id());
              assertThat(m.seq()).isEqualTo(3);
              assertThat(m.payload()).isEqualTo(dead.payload());
            });
    assertThat(outbox.head("PurchaseOrder", aggregate).writeSeq()).isEqualTo(3);
  }

  @Test
  void purgingTheDeadLetterAnAggregateIsHeldOnLetsItGoOnPastIt() {
    String aggregate = write(1, 2).get(0);
    LeasedHead head = claim("a", 1).get(0);
    OutboxMessage dead = head.messages().get(0);
    store.record(
        List.of(
            new HeadOutcome.DeadLettered(
                head.lease(), 0, dead.id(), dead.seq(), 1, "rejected", Instant.now(), true)));

    assertThat(store.purgeDeadLetters(List.of(dead.id(), UUID.randomUUID()))).isEqualTo(1);

    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
    assertThat(messages(claim("b", 10))).extracting(OutboxMessage::seq).containsExactly(2L);
    assertThat(outbox.rows()).extracting(Row::seq).containsExactly(2L);
    assertThat(outbox.head("PurchaseOrder", aggregate).held()).isFalse();
  }

  @Test
  void deadLettersAreFilteredAndPaged() {
    write(3, 1);
    Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    List<LeasedHead> heads = claim("a", 10);
    List<HeadOutcome> outcomes = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      OutboxMessage message = heads.get(i).messages().get(0);
      outcomes.add(
          new HeadOutcome.DeadLettered(
              heads.get(i).lease(), 0, message.id(), 1, 1, "e" + i, now.plusSeconds(i), false));
    }
    store.record(outcomes);

    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);
    assertThat(store.findDeadLetters(DeadLetterQuery.all().page(1, 1)))
        .extracting(DeadLetter::lastError)
        .containsExactly("e1");
    assertThat(store.countDeadLetters(DeadLetterQuery.all().since(now.plusSeconds(1))))
        .isEqualTo(2);
    assertThat(store.countDeadLetters(DeadLetterQuery.all().until(now.plusSeconds(1))))
        .isEqualTo(1);
    assertThat(
            store.findDeadLetters(
                DeadLetterQuery.all()
                    .aggregate("PurchaseOrder", heads.get(2).lease().aggregateId())
                    .eventType("order.placed")))
        .extracting(d -> d.message().id())
        .containsExactly(heads.get(2).messages().get(0).id());
    assertThat(store.countDeadLetters(DeadLetterQuery.all().eventType("nope"))).isZero();
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
    store.record(outcomes);

    assertThat(store.findDeadLetters(DeadLetterQuery.all().errorContains("100% full")))
        .as("case ignored, %% taken literally")
        .extracting(DeadLetter::lastError)
        .containsExactly(errors[0]);
    assertThat(store.countDeadLetters(DeadLetterQuery.all().errorContains("SAID"))).isEqualTo(2);
    assertThat(store.countDeadLetters(DeadLetterQuery.all().errorContains("d_o"))).isEqualTo(1);
    assertThat(store.countDeadLetters(DeadLetterQuery.all().errorContains("timed%out"))).isZero();

    OutboxMessage second = heads.get(1).messages().get(0);
    assertThat(store.findDeadLetter(second.id()))
        .hasValueSatisfying(
            d -> {
              assertThat(d.message().payload()).isEqualTo(second.payload());
              assertThat(d.message().headers()).isEqualTo(second.headers());
              assertThat(d.lastError()).isEqualTo(errors[1]);
            });
    assertThat(store.findDeadLetter(UUID.randomUUID())).isEmpty();
  }

  @Test
  void aggregateCountsTellRetryingWaitingForTheBrokerHeldAndLeasedPerInstance() {
    write(6, 2);
    List<LeasedHead> byA = claim("instance-a", 4);
    claim("instance-b", 10);
    assertThat(store.aggregateCounts().leasesByInstance())
        .containsExactly(entry("instance-a", 4L), entry("instance-b", 2L));

    OutboxMessage first = byA.get(0).messages().get(0);
    store.record(
        List.of(
            new HeadOutcome.Retry(byA.get(1).lease(), 0, 1, "down", Duration.ofMinutes(5)),
            new HeadOutcome.DeadLettered(
                byA.get(0).lease(), 0, first.id(), 1, 3, "rejected", Instant.now(), true),
            new HeadOutcome.Released(byA.get(2).lease(), 0),
            new HeadOutcome.Retry(
                byA.get(3).lease(),
                0,
                0,
                AggregateCounts.BROKER_UNAVAILABLE + "connection refused",
                Duration.ofMinutes(5))));

    AggregateCounts counts = store.aggregateCounts();
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
    store.record(
        delivered(
            heads.stream()
                .filter(head -> !head.lease().aggregateId().equals(pending.get(0)))
                .toList()));
    store.record(List.of(new HeadOutcome.Released(headOf(heads, pending.get(0)).lease(), 0)));
    Instant later = Instant.now().plusSeconds(60);

    assertThat(store.deleteDelivered(later, 3)).isEqualTo(3);
    assertThat(outbox.heads()).as("heads wait until a short batch").hasSize(6);
    assertThat(store.deleteDelivered(later, 3)).isEqualTo(2);
    assertThat(store.deleteDelivered(later, 3)).isZero();

    assertThat(outbox.rows())
        .as("an undelivered row is never deleted")
        .extracting(Row::aggregateId)
        .containsExactly(pending.get(0));
    assertThat(outbox.heads())
        .as("idle heads with no row left are deleted")
        .extracting(Head::aggregateId)
        .containsExactly(pending.get(0));
    assertThat(store.deleteDelivered(Instant.now().minusSeconds(60), 10)).isZero();
  }

  @Test
  void cdcCleanupDeletesEveryRowOlderThanTheCutoffInBoundedBatchesAndKeepsTheHeads() {
    List<String> delivered = write(2, 1);
    store.record(delivered(claim("a", 10)));
    List<String> pending = write(3, 1);
    Instant later = Instant.now().plusSeconds(60);

    assertThat(store.deleteWritten(Instant.now().minusSeconds(60), 10))
        .as("nothing was written before the cutoff")
        .isZero();
    assertThat(store.deleteWritten(later, 3)).isEqualTo(3);
    assertThat(store.deleteWritten(later, 3)).isEqualTo(2);
    assertThat(store.deleteWritten(later, 3)).isZero();

    assertThat(outbox.rows()).as("pending or not, the log has carried them").isEmpty();
    assertThat(outbox.heads())
        .as("every head stays, holding its aggregate's last seq")
        .extracting(Head::aggregateId)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.Stream.concat(delivered.stream(), pending.stream()).toList());
  }

  @Test
  void renewExtendsOnlyTheLeasesStillHeld() {
    write(2, 1);
    List<LeasedHead> heads = claim("a", 10, Duration.ofSeconds(2));
    Lease kept = heads.get(0).lease();
    Lease released = heads.get(1).lease();
    store.record(List.of(new HeadOutcome.Released(released, 0)));

    assertThat(store.renew("a", List.of(kept, released), LEASE)).containsExactly(released);
    assertThat(store.renew("b", List.of(kept), LEASE))
        .as("another instance's")
        .containsExactly(kept);

    await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> true);
    assertThat(claim("c", 10))
        .as("the renewed lease outlived its first two seconds")
        .extracting(head -> head.lease().aggregateId())
        .containsExactly(released.aggregateId());
  }

  @Test
  void statsCountTheMessagesBehindTheCursorsAndTheOldestOfThem() {
    assertThat(store.stats()).isEqualTo(new OutboxStats(0, null, 0));
    write(2, 3);
    List<LeasedHead> heads = claim("a", 2);
    store.record(List.of(new HeadOutcome.Delivered(heads.get(0).lease(), 1)));

    OutboxStats stats = store.stats();

    assertThat(stats.pending()).isEqualTo(5);
    assertThat(stats.oldestPendingCreatedAt()).isNotNull();
    assertThat(stats.deadLetters()).isZero();
  }

  @Test
  void headersSurviveTheRoundTrip() {
    long id = IDS.getAndIncrement();
    emf.inTransaction(
        session -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
          session.persist(order);
          order.cancel("because");
        });
    List<OutboxMessage> claimed = messages(claim("a", 10));
    assertThat(claimed.get(1).headers())
        .containsEntry("correlation-id", "c-" + id)
        .containsEntry("tenant", "acme");
    assertThat(claimed.get(0).headers()).isEmpty();
    assertThat(claimed).extracting(OutboxMessage::contentType).containsOnly("application/json");
  }

  @Test
  void publishedViewShowsWhatIsAtOrBeforeTheCursor() throws Exception {
    write(1, 3);
    LeasedHead head = claim("a", 10).get(0);
    store.record(List.of(new HeadOutcome.Delivered(head.lease(), 2)));

    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT seq FROM "
                    + OutboxOptions.builder().outboxTable(TABLE).build().publishedView()
                    + " ORDER BY seq");
        var result = statement.executeQuery()) {
      List<Long> seqs = new ArrayList<>();
      while (result.next()) {
        seqs.add(result.getLong(1));
      }
      assertThat(seqs).containsExactly(1L, 2L);
    }
  }
}
