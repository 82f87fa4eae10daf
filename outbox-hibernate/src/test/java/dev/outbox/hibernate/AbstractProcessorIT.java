package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.OutboxTable;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.RecordingPublisher;
import dev.outbox.hibernate.testing.TestDatabase;
import dev.outbox.hibernate.testing.TestEvents;
import dev.outbox.spi.ClaimRequest;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
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
          .atMost(Duration.ofMinutes(2))
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
      if (!sequence.equals(expected) || !isNonDecreasing(received)) {
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
    Duration shortLease = Duration.ofSeconds(2);
    List<OutboxMessage> abandoned =
        HibernateOutbox.store(emf)
            .claim(new ClaimRequest("died", 10, Instant.now(), shortLease, true, false));
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

  private static boolean isNonDecreasing(List<OutboxMessage> received) {
    for (int i = 1; i < received.size(); i++) {
      if (received.get(i).position() < received.get(i - 1).position()) {
        return false;
      }
    }
    return true;
  }
}
