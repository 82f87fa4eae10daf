package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.RecordingPublisher;
import dev.outbox.hibernate.testing.TestEvents;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.LeasedHead;
import jakarta.persistence.LockModeType;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The engine on the real store: several processors, failures, wake-up, lease takeover. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractProcessorIT {

  private static final String TABLE = "pr_outbox";
  private static final String DEAD_LETTERS = "pr_dead_letters";
  private static final AtomicLong IDS = new AtomicLong(1);

  private final TestDatabase database;
  private SessionFactory emf;
  private OutboxOptions options;
  private OutboxTable outbox;

  AbstractProcessorIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void startPersistenceUnit() {
    database.assumeReachable();
    OutboxTable.drop(database.dataSource(), TABLE, DEAD_LETTERS);
    options =
        OutboxOptions.builder()
            .outboxTable(TABLE)
            .deadLetterTable(DEAD_LETTERS)
            .createSchema(true)
            .batchSize(100)
            .pollInterval(Duration.ofMillis(50))
            .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(20)))
            .maxAttempts(1_000)
            .publishTimeout(Duration.ofSeconds(5))
            .leaseDuration(Duration.ofSeconds(10))
            .build();
    emf = Emfs.create(database.dataSource(), options);
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
  }

  @Test
  void threeProcessorsDeliverEveryEventInOrderPerAggregateDespiteRandomFailures() throws Exception {
    int aggregates = 50;
    int eventsEach = 200;
    int eventsPerTransaction = 20;
    RecordingPublisher publisher = new RecordingPublisher(0.10);
    List<Outbox> processors = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Outbox processor =
          HibernateOutbox.create(
              emf, publisher, options.toBuilder().instanceId("processor-" + i).build());
      processors.add(processor);
      processor.start();
    }
    List<Long> ids = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      ids.add(IDS.getAndIncrement());
    }
    ExecutorService writers = Executors.newFixedThreadPool(5);
    try {
      List<Future<?>> writing = new ArrayList<>();
      for (int w = 0; w < 5; w++) {
        List<Long> mine = ids.subList(w * 10, w * 10 + 10);
        writing.add(writers.submit(() -> writeSequences(mine, eventsEach, eventsPerTransaction)));
      }
      for (Future<?> done : writing) {
        done.get(120, TimeUnit.SECONDS);
      }
      await()
          .atMost(Duration.ofMinutes(4))
          .until(() -> publisher.deliveredCount() == aggregates * eventsEach);
    } finally {
      writers.shutdownNow();
      processors.forEach(Outbox::close);
    }

    int orderViolations = 0;
    for (Long id : ids) {
      List<OutboxMessage> received = publisher.deliveredTo(Long.toString(id));
      List<String> sequence = received.stream().map(OutboxMessage::payload).distinct().toList();
      List<String> expected = new ArrayList<>();
      for (int e = 0; e < eventsEach; e++) {
        expected.add("{\"text\":\"" + e + "\"}");
      }
      if (!sequence.equals(expected) || !seqsFollowEachOther(received)) {
        orderViolations++;
      }
    }
    System.out.printf(
        "%s: events=%d delivered=%d failures(retried)=%d duplicates=%d inFlightTwice=%d"
            + " orderViolations=%d%n",
        getClass().getSimpleName(),
        aggregates * eventsEach,
        publisher.deliveredCount(),
        publisher.failures(),
        publisher.duplicates(),
        publisher.inFlightTwice(),
        orderViolations);
    assertThat(publisher.deliveredCount()).isEqualTo(aggregates * eventsEach);
    assertThat(publisher.failures()).as("the publisher did fail, so retries happened").isPositive();
    assertThat(publisher.inFlightTwice()).isZero();
    assertThat(publisher.duplicates()).isZero();
    assertThat(orderViolations).isZero();
    assertThat(publisher.closeCount()).as("each outbox closes its publisher").isEqualTo(3);
    assertThat(outbox.rows()).extracting(OutboxTable.Row::status).containsOnly("PUBLISHED");
  }

  @Test
  void concurrentTransactionsOnOneAggregateArePublishedInTheOrderTheyCommitted() throws Exception {
    int aggregates = 5;
    int threads = 6;
    int transactionsEach = 40;
    List<Long> ids = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      long id = IDS.getAndIncrement();
      ids.add(id);
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ZERO)));
    }
    RecordingPublisher publisher = new RecordingPublisher(0.05);
    Outbox processor = HibernateOutbox.create(emf, publisher, options);
    processor.start();
    ExecutorService writers = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> writing = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        writing.add(
            writers.submit(
                () -> {
                  for (int i = 0; i < transactionsEach; i++) {
                    long id = ids.get((thread + i) % aggregates);
                    emf.inTransaction(
                        session ->
                            session
                                .find(PurchaseOrder.class, id, LockModeType.PESSIMISTIC_WRITE)
                                .bump());
                  }
                }));
      }
      for (Future<?> done : writing) {
        done.get(120, TimeUnit.SECONDS);
      }
      int expected = aggregates + threads * transactionsEach;
      await().atMost(Duration.ofMinutes(1)).until(() -> publisher.deliveredCount() == expected);
    } finally {
      writers.shutdownNow();
      processor.close();
    }
    for (Long id : ids) {
      List<String> totals =
          publisher.deliveredTo(Long.toString(id)).stream()
              .skip(1)
              .map(OutboxMessage::payload)
              .distinct()
              .toList();
      List<String> ascending = new ArrayList<>();
      for (int n = 1; n <= totals.size(); n++) {
        ascending.add("{\"text\":\"" + n + "\"}");
      }
      assertThat(totals)
          .as("aggregate %d, in the order its transactions committed", id)
          .isEqualTo(ascending);
    }
    assertThat(publisher.inFlightTwice()).isZero();
  }

  @Test
  void twoOutboxesOnOnePersistenceUnitRunUnderDistinctIdsAndDeliverEachEventOnceBetweenThem() {
    RecordingPublisher firstBroker = new RecordingPublisher(0);
    RecordingPublisher secondBroker = new RecordingPublisher(0);
    List<Long> ids = new ArrayList<>();
    for (int a = 0; a < 10; a++) {
      ids.add(IDS.getAndIncrement());
    }
    try (Outbox first = HibernateOutbox.create(emf, firstBroker);
        Outbox second = HibernateOutbox.create(emf, secondBroker)) {
      first.start();
      second.start();

      String id = HibernateOutbox.options(emf).instanceId();
      assertThat(first.health().instanceId()).isEqualTo(id);
      assertThat(second.health().instanceId()).isEqualTo(id + "-2");

      writeSequences(ids, 20, 5);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> firstBroker.deliveredCount() + secondBroker.deliveredCount() >= 200);
    }
    List<String> expected = new ArrayList<>();
    for (int e = 0; e < 20; e++) {
      expected.add("{\"text\":\"" + e + "\"}");
    }
    for (Long id : ids) {
      List<String> delivered = new ArrayList<>();
      firstBroker.deliveredTo(Long.toString(id)).forEach(m -> delivered.add(m.payload()));
      secondBroker.deliveredTo(Long.toString(id)).forEach(m -> delivered.add(m.payload()));
      assertThat(delivered)
          .as("aggregate %d: every event once, by one of the two", id)
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void anIdleAggregateIsWrittenLeasedToTheRunningProcessorAndPublishedFromMemoryInOrder() {
    RecordingPublisher publisher = new RecordingPublisher(0);
    Outbox fast =
        HibernateOutbox.create(
            emf,
            publisher,
            options.toBuilder().instanceId("fast").pollInterval(Duration.ofHours(1)).build());
    long id = IDS.getAndIncrement();
    List<String> leasedTo = new ArrayList<>();
    try {
      fast.start();
      emf.inTransaction(
          session -> {
            PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
            order.announce(new TestEvents.Noted("second"));
            session.persist(order);
            session.flush();
            leasedTo.add(claimedBy(session, id));
          });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> publisher.deliveredTo(Long.toString(id)).size() == 2);
    } finally {
      fast.close();
    }
    assertThat(leasedTo).as("the head is leased in the flush").containsExactly("fast");
    assertThat(publisher.deliveredTo(Long.toString(id)))
        .extracting(OutboxMessage::seq)
        .containsExactly(1L, 2L);
    assertThat(outbox.head("PurchaseOrder", Long.toString(id)).claimedBy())
        .as("released once delivered")
        .isNull();
  }

  @Test
  void eventOfAnAggregateHeldByAnotherInstanceIsNotLeasedOnWriteAndWaitsItsTurn() {
    long id = IDS.getAndIncrement();
    emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    // Long enough to outlast creating and starting an outbox on a slow machine.
    Duration shortLease = Duration.ofSeconds(5);
    assertThat(HibernateOutbox.store(emf).claim(new ClaimRequest("died", 10, shortLease, true)))
        .as("the first event is held by an instance that died")
        .hasSize(1);
    RecordingPublisher publisher = new RecordingPublisher(0);
    Outbox fast =
        HibernateOutbox.create(
            emf,
            publisher,
            options.toBuilder()
                .instanceId("fast")
                .publishTimeout(Duration.ofSeconds(1))
                .leaseDuration(shortLease)
                .pollInterval(Duration.ofMillis(200))
                .build());
    List<String> leasedTo = new ArrayList<>();
    try {
      fast.start();
      emf.inTransaction(
          session -> {
            session.find(PurchaseOrder.class, id).bump();
            session.flush();
            leasedTo.add(claimedBy(session, id));
          });
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> publisher.deliveredTo(Long.toString(id)).size() == 2);
    } finally {
      fast.close();
    }
    assertThat(leasedTo).containsExactly("died");
    assertThat(publisher.deliveredTo(Long.toString(id)))
        .extracting(OutboxMessage::payload)
        .containsExactly("{\"orderId\":" + id + ",\"total\":1}", "{\"text\":\"2\"}");
  }

  private String claimedBy(org.hibernate.Session session, long id) {
    return session.doReturningWork(
        connection -> {
          try (var statement =
              connection.prepareStatement(
                  "SELECT claimed_by FROM "
                      + OutboxTable.headTable(TABLE)
                      + " WHERE aggregate_id = ?")) {
            statement.setString(1, Long.toString(id));
            try (var rows = statement.executeQuery()) {
              rows.next();
              return rows.getString(1);
            }
          }
        });
  }

  @Test
  void writersThatNeverTouchTheAggregateRowGetGapFreeSeqsInCommitOrder() throws Exception {
    long id = IDS.getAndIncrement();
    emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ZERO)));
    RecordingPublisher publisher = new RecordingPublisher(0.05);
    Outbox processor = HibernateOutbox.create(emf, publisher, options);
    processor.start();
    int threads = 4;
    int transactionsEach = 25;
    AtomicLong lines = new AtomicLong(1_000_000L * id);
    ExecutorService writers = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> writing = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        writing.add(
            writers.submit(
                () -> {
                  for (int i = 0; i < transactionsEach; i++) {
                    int step = i;
                    // Odd steps change only a child row (and may collide with another writer's
                    // line: the rollback must leave no gap); even steps change no row at all.
                    inTransactionRetried(
                        session -> {
                          PurchaseOrder order = session.find(PurchaseOrder.class, id);
                          if (step % 2 == 1) {
                            order.addLine(lines.incrementAndGet(), "sku");
                          }
                          order.announce(new TestEvents.Noted(thread + "-" + step));
                        });
                  }
                }));
      }
      for (Future<?> done : writing) {
        done.get(120, TimeUnit.SECONDS);
      }
      // the placed event, one note per transaction, and a line event on each odd step
      int expected = 1 + threads * transactionsEach + threads * (transactionsEach / 2);
      await().atMost(Duration.ofMinutes(1)).until(() -> publisher.deliveredCount() == expected);
    } finally {
      writers.shutdownNow();
      processor.close();
    }
    List<OutboxMessage> received = publisher.deliveredTo(Long.toString(id));
    assertThat(seqsFollowEachOther(received)).as("seqs 1..n, delivered in seq order").isTrue();
    List<String> noted =
        received.stream()
            .filter(m -> m.eventType().equals("Noted"))
            .map(OutboxMessage::payload)
            .distinct()
            .toList();
    assertThat(noted).hasSize(threads * transactionsEach);
    for (int t = 0; t < threads; t++) {
      String prefix = "{\"text\":\"" + t + "-";
      List<String> mine = noted.stream().filter(p -> p.startsWith(prefix)).toList();
      List<String> inCommitOrder = new ArrayList<>();
      for (int i = 0; i < transactionsEach; i++) {
        inCommitOrder.add(prefix + i + "\"}");
      }
      assertThat(mine)
          .as("writer %d's transactions, in the order they committed", t)
          .isEqualTo(inCommitOrder);
    }
    assertThat(publisher.inFlightTwice()).isZero();
  }

  /** Runs a transaction again when the database refused it for a conflict of the test's rows. */
  private void inTransactionRetried(java.util.function.Consumer<org.hibernate.Session> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        emf.inTransaction(work);
        return;
      } catch (RuntimeException e) {
        if (attempt == 50) {
          throw e;
        }
      }
    }
  }

  @Test
  void closeReleasesEveryHeadItHoldsSoANewOutboxGoesOnAtOnce() {
    RecordingPublisher slow = new RecordingPublisher(0);
    slow.delay(Duration.ofMillis(50));
    Duration longLease = Duration.ofSeconds(60);
    OutboxOptions held =
        options.toBuilder()
            .leaseDuration(longLease)
            .publishTimeout(Duration.ofSeconds(5))
            .batchSize(10)
            .build();
    Outbox first = HibernateOutbox.create(emf, slow, held.toBuilder().instanceId("first").build());
    List<Long> ids = new ArrayList<>();
    first.start();
    try {
      for (int a = 0; a < 30; a++) {
        long id = IDS.getAndIncrement();
        ids.add(id);
        emf.inTransaction(
            session -> {
              PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
              for (int e = 1; e < 20; e++) {
                order.announce(new TestEvents.Noted(Integer.toString(e)));
              }
              session.persist(order);
            });
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> slow.deliveredCount() > 0);
    } finally {
      first.close();
    }
    assertThat(outbox.heads())
        .as("no head is left leased by the closed instance")
        .extracting(OutboxTable.Head::claimedBy)
        .containsOnlyNulls();

    RecordingPublisher second = new RecordingPublisher(0);
    Outbox next =
        HibernateOutbox.create(emf, second, held.toBuilder().instanceId("second").build());
    next.start();
    try {
      // Far less than the 60 s lease the first instance would otherwise have left behind.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> slow.deliveredCount() + second.deliveredCount() >= 30 * 20);
    } finally {
      next.close();
    }
    for (Long id : ids) {
      List<OutboxMessage> all = new ArrayList<>(slow.deliveredTo(Long.toString(id)));
      all.addAll(second.deliveredTo(Long.toString(id)));
      assertThat(seqsFollowEachOther(all)).as("aggregate %d in order across both", id).isTrue();
    }
  }

  @Test
  void aDeadLetterHoldsItsAggregateOnEveryPathUntilItIsReplayed() {
    RecordingPublisher publisher = new RecordingPublisher(0);
    long id = IDS.getAndIncrement();
    long other = IDS.getAndIncrement();
    publisher.reject(m -> m.aggregateId().equals(Long.toString(id)) && m.seq() == 2);
    Outbox holding =
        HibernateOutbox.create(
            emf,
            publisher,
            options.toBuilder().instanceId("holding").holdAggregateOnDeadLetter(true).build());
    holding.start();
    try {
      emf.inTransaction(
          session -> {
            PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
            order.announce(new TestEvents.Noted("rejected"));
            order.announce(new TestEvents.Noted("behind"));
            session.persist(order);
          });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> holding.deadLetters().count(dev.outbox.DeadLetterQuery.all()) == 1);
      // More events for the held aggregate: neither the fast path, a continuation nor a claim
      // may send them while the dead letter holds it.
      emf.inTransaction(
          session -> session.find(PurchaseOrder.class, id).announce(new TestEvents.Noted("later")));
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(other, BigDecimal.ONE)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> publisher.deliveredTo(Long.toString(other)).size() == 1);
      holding.runOnce();
      assertThat(publisher.deliveredTo(Long.toString(id)))
          .extracting(OutboxMessage::seq)
          .containsExactly(1L);

      publisher.reject(m -> false);
      assertThat(holding.deadLetters().replayAll(dev.outbox.DeadLetterQuery.all())).isEqualTo(1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> publisher.deliveredTo(Long.toString(id)).size() == 4);
    } finally {
      holding.close();
    }
    assertThat(publisher.deliveredTo(Long.toString(id)))
        .extracting(OutboxMessage::seq)
        .containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void commitWakesTheProcessorInsteadOfWaitingForThePollInterval() {
    RecordingPublisher publisher = new RecordingPublisher(0);
    Outbox sleepy =
        HibernateOutbox.create(
            emf, publisher, options.toBuilder().pollInterval(Duration.ofHours(1)).build());
    try {
      sleepy.start();
      await().pollDelay(Duration.ofMillis(200)).until(() -> true);
      long id = IDS.getAndIncrement();
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> publisher.deliveredTo(Long.toString(id)).size() == 1);
    } finally {
      sleepy.close();
    }
  }

  @Test
  void messagesOfAProcessorThatDiedWithItsClaimArePublishedOnceTheLeaseRunsOut() {
    long id = IDS.getAndIncrement();
    emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    // Long enough to outlast creating and starting an outbox on a slow machine.
    Duration shortLease = Duration.ofSeconds(5);
    List<LeasedHead> abandoned =
        HibernateOutbox.store(emf).claim(new ClaimRequest("died", 10, shortLease, true));
    assertThat(abandoned).hasSize(1);

    RecordingPublisher publisher = new RecordingPublisher(0);
    Outbox survivor =
        HibernateOutbox.create(
            emf,
            publisher,
            options.toBuilder()
                .instanceId("survivor")
                .publishTimeout(Duration.ofSeconds(1))
                .leaseDuration(shortLease)
                .build());
    try {
      assertThat(survivor.runOnce()).as("still leased to the dead instance").isZero();
      survivor.start();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> publisher.deliveredTo(Long.toString(id)).size() == 1);
    } finally {
      survivor.close();
    }
  }

  private void writeSequences(List<Long> ids, int eventsEach, int perTransaction) {
    emf.inTransaction(
        session -> {
          for (Long id : ids) {
            PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
            order.clearDomainEvents();
            order.announce(new TestEvents.Noted("0"));
            session.persist(order);
          }
        });
    for (int next = 1; next < eventsEach; ) {
      for (Long id : ids) {
        int from = next;
        int to = Math.min(eventsEach, next + perTransaction);
        emf.inTransaction(
            session -> {
              PurchaseOrder order = session.find(PurchaseOrder.class, id);
              for (int e = from; e < to; e++) {
                order.announce(new TestEvents.Noted(Integer.toString(e)));
              }
            });
      }
      next = Math.min(eventsEach, next + perTransaction);
    }
  }

  /**
   * Whether the distinct seqs received are 1, 2, 3, ... in that order: nothing lost, nothing out of
   * order. A redelivery of a seq already received (at least once) is allowed.
   */
  private static boolean seqsFollowEachOther(List<OutboxMessage> received) {
    long next = 1;
    for (OutboxMessage message : received) {
      if (message.seq() == next) {
        next++;
      } else if (message.seq() > next) {
        return false;
      }
    }
    return next > 1;
  }
}
