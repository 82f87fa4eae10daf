package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.OutboxTable;
import dev.outbox.hibernate.testing.OutboxTable.Row;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.TestDatabase;
import dev.outbox.hibernate.testing.TestEvents;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.Outcome;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The JDBC outbox store on a real database: claims, leases, outcomes, dead letters, cleanup. */
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
    new OutboxTable(database.dataSource(), DEAD_LETTERS).clear();
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

  static Instant now() {
    return Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
  }

  List<OutboxMessage> claim(String instance, Instant now, int limit) {
    return store.claim(new ClaimRequest(instance, limit, now, LEASE, true, false));
  }

  static List<Outcome> published(List<OutboxMessage> messages, Instant at) {
    return messages.stream().<Outcome>map(m -> new Outcome.Published(m.id(), at)).toList();
  }

  @Test
  void claimTakesEachAggregatesFirstMessagesInPositionOrderAndLeasesThem() {
    List<String> aggregates = write(3, 2);
    Instant now = now();

    List<OutboxMessage> first = claim("a", now, 10);
    assertThat(first).hasSize(6);
    assertThat(first).extracting(OutboxMessage::position).isSorted();
    for (String aggregate : aggregates) {
      assertThat(first.stream().filter(m -> m.aggregateId().equals(aggregate)))
          .extracting(OutboxMessage::eventType)
          .containsExactly("order.placed", "Noted");
    }
    assertThat(claim("b", now, 10)).as("leased messages are nobody else's").isEmpty();
  }

  @Test
  void aRowLockedElsewhereHoldsBackTheRestOfItsAggregateAndLeavesItUnleased() throws Exception {
    List<String> aggregates = write(2, 3);
    String held = aggregates.get(0);
    String free = aggregates.get(1);
    long firstOfHeld =
        outbox.rows().stream()
            .filter(r -> r.aggregateId().equals(held))
            .findFirst()
            .orElseThrow()
            .position();
    Instant now = now();

    try (Connection other = database.dataSource().getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement lock =
          other.prepareStatement("SELECT id FROM " + TABLE + " WHERE position = ? FOR UPDATE")) {
        lock.setLong(1, firstOfHeld);
        lock.executeQuery().close();
      }

      List<OutboxMessage> claimed = claim("a", now, 10);

      assertThat(claimed).extracting(OutboxMessage::aggregateId).containsExactly(free, free, free);
      assertThat(leasedRows()).as("only what was claimed is leased").isEqualTo(3);
      other.rollback();
    }
    assertThat(claim("b", now, 10))
        .extracting(OutboxMessage::aggregateId)
        .containsExactly(held, held, held);
  }

  private long leasedRows() throws SQLException {
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT COUNT(*) FROM " + TABLE + " WHERE claimed_by IS NOT NULL")) {
      result.next();
      return result.getLong(1);
    }
  }

  @Test
  void messagesBehindAFailedOneWaitForItsRetryWhileOtherAggregatesGoOn() {
    List<String> aggregates = write(2, 2);
    Instant now = now();
    List<OutboxMessage> claimed = claim("a", now, 10);
    OutboxMessage failedHead =
        claimed.stream().filter(m -> m.aggregateId().equals(aggregates.get(0))).findFirst().get();
    List<Outcome> outcomes = new java.util.ArrayList<>();
    for (OutboxMessage message : claimed) {
      outcomes.add(
          message == failedHead
              ? new Outcome.Failed(message.id(), 1, "down", now.plusSeconds(60))
              : new Outcome.Released(message.id()));
    }
    store.record("a", outcomes);

    List<OutboxMessage> others = claim("b", now, 10);
    assertThat(others)
        .as("the failed aggregate waits; the released one is claimed again")
        .extracting(OutboxMessage::aggregateId)
        .containsOnly(aggregates.get(1))
        .hasSize(2);
    store.record("b", published(others, now));
    assertThat(claim("c", now.plusSeconds(60), 10))
        .extracting(OutboxMessage::aggregateId)
        .containsOnly(aggregates.get(0))
        .hasSize(2);
  }

  @Test
  void recordAndClaimSeesWhatItRecordedInTheSameTransaction() {
    List<String> aggregates = write(2, 3);
    Instant now = now();
    List<OutboxMessage> firsts = claim("a", now, 2);
    assertThat(firsts)
        .extracting(OutboxMessage::aggregateId)
        .containsExactly(aggregates.get(0), aggregates.get(0));

    List<OutboxMessage> next =
        store.recordAndClaim(
            "a", published(firsts, now), new ClaimRequest("a", 10, now, LEASE, true, false));

    assertThat(next)
        .as("the rest of the recorded aggregate, and the other aggregate")
        .hasSize(4)
        .extracting(OutboxMessage::position)
        .isSorted();
    assertThat(outbox.rows())
        .filteredOn(row -> row.aggregateId().equals(aggregates.get(0)))
        .extracting(OutboxTable.Row::status)
        .containsExactly("PUBLISHED", "PUBLISHED", "PENDING");
    assertThat(claim("b", now, 10)).as("the new claim holds the rest").isEmpty();
  }

  @Test
  void anErrorTextWithANulCharacterIsRecorded() {
    write(1, 1);
    Instant now = now();
    OutboxMessage message = claim("a", now, 10).get(0);

    store.record(
        "a",
        List.of(new Outcome.Failed(message.id(), 1, "broker said \u0000no", now.plusSeconds(60))));

    assertThat(outbox.rows())
        .filteredOn(row -> row.id().equals(message.id().toString()))
        .extracting(OutboxTable.Row::attempts)
        .containsExactly(1);
  }

  @Test
  void unorderedClaimTakesEveryDueMessage() {
    write(2, 3);
    List<OutboxMessage> all = store.claim(new ClaimRequest("a", 100, now(), LEASE, false, false));
    assertThat(all).hasSize(6);
    assertThat(all).extracting(OutboxMessage::position).isSorted();
  }

  @Test
  void leaseOfAnInstanceThatNeverRecordsRunsOutAndAnotherTakesOver() {
    write(2, 1);
    Instant now = now();
    List<OutboxMessage> lost = claim("crashed", now, 10);
    assertThat(lost).hasSize(2);
    assertThat(claim("survivor", now.plus(LEASE).minusMillis(1), 10)).isEmpty();

    List<OutboxMessage> takenOver = claim("survivor", now.plus(LEASE), 10);
    assertThat(takenOver)
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(lost.stream().map(OutboxMessage::id).toList());

    store.record(
        "crashed", List.of(new Outcome.Failed(lost.get(0).id(), 1, "late", now.plusSeconds(5))));
    assertThat(outbox.rows()).extracting(Row::attempts).containsOnly(0);
  }

  @Test
  void concurrentClaimsNeverReturnTheSameMessage() throws Exception {
    write(200, 1);
    Instant now = now();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<List<OutboxMessage>>> claims = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String instance = "i" + i;
        claims.add(
            () -> {
              List<OutboxMessage> mine = new ArrayList<>();
              List<OutboxMessage> batch;
              while (!(batch = claim(instance, now, 7)).isEmpty()) {
                mine.addAll(batch);
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
  void failedAttemptIsRecordedAndNotClaimedBeforeItsNextAttempt() {
    write(1, 2);
    Instant now = now();
    OutboxMessage head = claim("a", now, 10).get(0);
    Instant retryAt = now.plusSeconds(30);
    store.record("a", List.of(new Outcome.Failed(head.id(), 1, "broker down", retryAt)));

    Row row = outbox.rows().get(0);
    assertThat(row.attempts()).isEqualTo(1);
    assertThat(row.status()).isEqualTo("PENDING");
    assertThat(claim("a", retryAt.minusMillis(1), 10))
        .as("neither the failed head nor the message behind it")
        .isEmpty();
    List<OutboxMessage> retried = claim("a", retryAt, 10);
    assertThat(retried).extracting(OutboxMessage::id).containsExactly(head.id());
    assertThat(retried.get(0).attempts()).isEqualTo(1);
  }

  @Test
  void deadLetterMovesTheRowAndTheAggregateGoesOnOrIsHeld() {
    List<String> aggregates = write(1, 2);
    Instant now = now();
    OutboxMessage head = claim("a", now, 1).get(0);
    store.record("a", List.of(new Outcome.DeadLettered(head.id(), 3, "rejected", now)));

    assertThat(outbox.rows()).hasSize(1);
    List<DeadLetter> dead = store.findDeadLetters(DeadLetterQuery.all());
    assertThat(dead)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.message().id()).isEqualTo(head.id());
              assertThat(d.message().attempts()).isEqualTo(3);
              assertThat(d.message().position()).isEqualTo(head.position());
              assertThat(d.lastError()).isEqualTo("rejected");
            });
    assertThat(store.claim(new ClaimRequest("a", 10, now, LEASE, true, true)))
        .as("held while the aggregate has a dead letter")
        .isEmpty();
    assertThat(claim("a", now, 10))
        .extracting(OutboxMessage::aggregateId)
        .containsExactly(aggregates.get(0));
  }

  @Test
  void replayPutsDeadLettersBackInFrontWithAttemptsResetAndPurgeDeletes() {
    write(1, 2);
    Instant now = now();
    OutboxMessage head = claim("a", now, 1).get(0);
    store.record("a", List.of(new Outcome.DeadLettered(head.id(), 5, "rejected", now)));

    assertThat(store.replayDeadLetters(List.of(head.id()), now)).isEqualTo(1);
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
    List<OutboxMessage> again = claim("a", now, 1);
    assertThat(again).extracting(OutboxMessage::id).containsExactly(head.id());
    assertThat(again.get(0).attempts()).isZero();
    assertThat(again.get(0).position()).isEqualTo(head.position());

    store.record("a", List.of(new Outcome.DeadLettered(head.id(), 1, "again", now)));
    assertThat(store.purgeDeadLetters(List.of(head.id(), UUID.randomUUID()))).isEqualTo(1);
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
  }

  @Test
  void deadLettersAreFilteredAndPaged() {
    write(3, 1);
    Instant now = now();
    List<OutboxMessage> heads = claim("a", now, 10);
    List<Outcome> outcomes = new ArrayList<>();
    for (int i = 0; i < heads.size(); i++) {
      outcomes.add(new Outcome.DeadLettered(heads.get(i).id(), 1, "e" + i, now.plusSeconds(i)));
    }
    store.record("a", outcomes);

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
                    .aggregate("PurchaseOrder", heads.get(2).aggregateId())
                    .eventType("order.placed")))
        .extracting(d -> d.message().id())
        .containsExactly(heads.get(2).id());
    assertThat(store.countDeadLetters(DeadLetterQuery.all().eventType("nope"))).isZero();
  }

  @Test
  void cleanupDeletesPublishedRowsOlderThanTheCutoffInBoundedBatches() {
    write(5, 1);
    Instant now = now();
    List<OutboxMessage> heads = claim("a", now, 10);
    store.record("a", published(heads.subList(0, 4), now.minusSeconds(60)));
    store.record("a", published(heads.subList(4, 5), now));

    assertThat(store.deletePublished(now.minusSeconds(1), 3)).isEqualTo(3);
    assertThat(store.deletePublished(now.minusSeconds(1), 3)).isEqualTo(1);
    assertThat(store.deletePublished(now.minusSeconds(1), 3)).isZero();
    assertThat(outbox.rows()).extracting(Row::status).containsExactly("PUBLISHED");
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
    List<OutboxMessage> unordered =
        store.claim(new ClaimRequest("a", 10, now(), LEASE, false, false));
    assertThat(unordered.get(1).headers())
        .containsEntry("correlation-id", "c-" + id)
        .containsEntry("tenant", "acme");
    assertThat(unordered.get(0).headers()).isEmpty();
    Set<UUID> ids = new HashSet<>();
    unordered.forEach(m -> ids.add(m.id()));
    assertThat(ids).hasSize(2);
    assertThat(Collections.frequency(List.of(unordered.get(0).contentType()), "application/json"))
        .isEqualTo(1);
  }
}
