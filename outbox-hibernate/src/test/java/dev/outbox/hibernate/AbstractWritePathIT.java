package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.Shipment;
import dev.outbox.hibernate.testing.StatementCounter;
import dev.outbox.hibernate.testing.TestEvents;
import dev.outbox.jdbc.JacksonEventSerializer;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.OutboxTable.Row;
import dev.outbox.jdbc.testing.TestDatabase;
import jakarta.persistence.EntityManager;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The write path on a real database: events are harvested at every kind of flush, in the business
 * transaction, as one batched insert, and never half-written. Each database runs it through a
 * subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractWritePathIT {

  private static final String TABLE = "wp_outbox";
  private static final String DEAD_LETTERS = "wp_dead_letters";
  private static final AtomicLong IDS = new AtomicLong(1);

  private final TestDatabase database;
  private StatementCounter counter;
  private DataSource dataSource;
  private SessionFactory emf;
  private OutboxTable outbox;

  AbstractWritePathIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void startPersistenceUnit() {
    database.assumeReachable();
    OutboxTable.drop(database.dataSource(), TABLE, DEAD_LETTERS);
    counter = new StatementCounter(TABLE);
    dataSource = counter.wrap(database.dataSource());
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(TABLE)
            .deadLetterTable(DEAD_LETTERS)
            .createSchema(true)
            .build();
    emf = Emfs.create(dataSource, options);
    outbox = new OutboxTable(database.dataSource(), TABLE);
  }

  @AfterAll
  void closePersistenceUnit() {
    if (emf != null) {
      emf.close();
    }
  }

  @BeforeEach
  void emptyOutbox() {
    outbox.clear();
    counter.reset();
  }

  @Test
  void eventsOfPersistedAggregateAreWrittenAtCommit() {
    long id = IDS.getAndIncrement();
    inTransaction(em -> em.persist(PurchaseOrder.place(id, new BigDecimal("12.50"))));

    List<Row> rows = outbox.rows();
    assertThat(rows).hasSize(1);
    Row row = rows.get(0);
    assertThat(UUID.fromString(row.id()).version()).isEqualTo(7);
    assertThat(row.aggregateType()).isEqualTo("PurchaseOrder");
    assertThat(row.aggregateId()).isEqualTo(Long.toString(id));
    assertThat(row.eventType()).isEqualTo("order.placed");
    assertThat(row.contentType()).isEqualTo("application/json");
    assertThat(row.payload()).isEqualTo("{\"orderId\":" + id + ",\"total\":12.50}");
    assertThat(row.headers()).isEqualTo("{}");
    assertThat(row.status()).isEqualTo("PENDING");
    assertThat(row.attempts()).isZero();
  }

  @Test
  void explicitFlushWritesInTheSameTransactionAndOnlyCommitMakesItVisible() {
    long id = IDS.getAndIncrement();
    EntityManager em = emf.createEntityManager();
    try {
      em.getTransaction().begin();
      em.persist(PurchaseOrder.place(id, BigDecimal.ONE));
      em.flush();
      assertThat(rowsInsideTransaction(em)).hasSize(1);
      assertThat(outbox.rows()).as("not visible before commit").isEmpty();
      em.getTransaction().commit();
    } finally {
      em.close();
    }
    assertThat(outbox.rows()).hasSize(1);
  }

  @Test
  void autoFlushBeforeAQueryWritesTheEvents() {
    long id = IDS.getAndIncrement();
    inTransaction(em -> em.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    outbox.clear();

    inTransaction(
        em -> {
          em.find(PurchaseOrder.class, id).cancel("customer asked");
          List<PurchaseOrder> cancelled =
              em.createQuery(
                      "select o from PurchaseOrder o where o.id = :id and o.status = 'CANCELLED'",
                      PurchaseOrder.class)
                  .setParameter("id", id)
                  .getResultList();
          assertThat(cancelled).hasSize(1);
          assertThat(rowsInsideTransaction(em))
              .extracting(Row::eventType)
              .containsExactly("order.cancelled");
        });
    assertThat(outbox.rows()).hasSize(1);
  }

  @Test
  void secondFlushInTheSameTransactionWritesNothingTwice() {
    long id = IDS.getAndIncrement();
    inTransaction(
        em -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
          em.persist(order);
          em.flush();
          em.flush();
          order.cancel("changed mind");
          em.flush();
        });
    assertThat(outbox.rows())
        .extracting(Row::eventType)
        .containsExactly("order.placed", "order.cancelled");
  }

  @Test
  void updatedDeletedChildChangedAndUnchangedAggregatesAreAllHarvested() {
    long updated = IDS.getAndIncrement();
    long deleted = IDS.getAndIncrement();
    long childChanged = IDS.getAndIncrement();
    long unchanged = IDS.getAndIncrement();
    inTransaction(
        em -> {
          for (long id : new long[] {updated, deleted, childChanged, unchanged}) {
            em.persist(PurchaseOrder.place(id, BigDecimal.TEN));
          }
        });
    outbox.clear();

    inTransaction(
        em -> {
          em.find(PurchaseOrder.class, updated).cancel("late");
          PurchaseOrder toDelete = em.find(PurchaseOrder.class, deleted);
          toDelete.announce(new TestEvents.Noted("deleting"));
          em.remove(toDelete);
          em.find(PurchaseOrder.class, childChanged).addLine(IDS.getAndIncrement(), "SKU-1");
          em.find(PurchaseOrder.class, unchanged).announce(new TestEvents.Noted("just saying"));
        });

    assertThat(outbox.rows())
        .extracting(row -> row.aggregateId() + ":" + row.eventType())
        .containsExactlyInAnyOrder(
            updated + ":order.cancelled",
            deleted + ":Noted",
            childChanged + ":order.line-added",
            unchanged + ":Noted");
    inTransaction(em -> assertThat(em.find(PurchaseOrder.class, deleted)).isNull());
  }

  @Test
  void eventsKeepRegistrationOrderWithinEachAggregate() {
    long a = IDS.getAndIncrement();
    long b = IDS.getAndIncrement();
    inTransaction(
        em -> {
          PurchaseOrder orderA = PurchaseOrder.place(a, BigDecimal.ONE); // A1
          em.persist(orderA);
          orderA.announce(new TestEvents.Noted("A2"));
          PurchaseOrder orderB = PurchaseOrder.place(b, BigDecimal.ONE); // B1
          em.persist(orderB);
          orderA.announce(new TestEvents.Noted("A3"));
        });

    List<Row> rows = outbox.rows();
    assertThat(rows.stream().filter(r -> r.aggregateId().equals(Long.toString(a))))
        .extracting(Row::payload)
        .containsExactly(
            "{\"orderId\":" + a + ",\"total\":1}", "{\"text\":\"A2\"}", "{\"text\":\"A3\"}");
    assertThat(rows.stream().filter(r -> r.aggregateId().equals(Long.toString(b)))).hasSize(1);
    assertThat(rows).extracting(Row::position).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void rolledBackTransactionLeavesNoRows() {
    long id = IDS.getAndIncrement();
    EntityManager em = emf.createEntityManager();
    try {
      em.getTransaction().begin();
      em.persist(PurchaseOrder.place(id, BigDecimal.ONE));
      em.flush();
      em.getTransaction().rollback();
    } finally {
      em.close();
    }
    assertThat(outbox.rows()).isEmpty();
    inTransaction(e -> assertThat(e.find(PurchaseOrder.class, id)).isNull());
  }

  @Test
  void unserializableEventRollsBackTheBusinessTransaction() {
    long id = IDS.getAndIncrement();
    assertCommitFailsAndNothingIsWritten(
        id,
        order -> order.announce(new TestEvents.Unserializable("x")),
        "Cannot serialize event " + TestEvents.Unserializable.class.getName(),
        "value is not available");
  }

  @Test
  void anEventHoldingAValueJacksonSeesNoPropertiesInRollsBackTheBusinessTransaction() {
    long id = IDS.getAndIncrement();
    assertCommitFailsAndNothingIsWritten(
        id,
        order -> order.announce(new TestEvents.PriceChanged(id, new TestEvents.Money(5, "EUR"))),
        "no properties in " + TestEvents.Money.class.getName());
  }

  @Test
  void anAggregateIdOverrideThatReturnsNullRollsBackNamingTheClass() {
    long id = IDS.getAndIncrement();
    EntityManager em = emf.createEntityManager();
    try {
      em.getTransaction().begin();
      em.persist(Shipment.ship(id, null));
      assertThatThrownBy(() -> em.getTransaction().commit())
          .hasStackTraceContaining(OutboxException.class.getName())
          .hasStackTraceContaining(Shipment.class.getName() + ".aggregateId() returned null");
    } finally {
      if (em.getTransaction().isActive()) {
        em.getTransaction().rollback();
      }
      em.close();
    }
    assertThat(outbox.rows()).isEmpty();
    inTransaction(e -> assertThat(e.find(Shipment.class, id)).isNull());
  }

  @Test
  void anAggregateIdOverrideKeysTheEventsByItsBusinessKey() {
    inTransaction(em -> em.persist(Shipment.ship(IDS.getAndIncrement(), "TRACK-1")));

    assertThat(outbox.rows()).extracting(Row::aggregateId).containsExactly("TRACK-1");
  }

  /**
   * Persists an order, changes it, and checks that the commit fails with an {@link OutboxException}
   * whose stack trace holds every message, and that it left nothing.
   */
  private void assertCommitFailsAndNothingIsWritten(
      long id, Consumer<PurchaseOrder> change, String... messages) {
    EntityManager em = emf.createEntityManager();
    try {
      em.getTransaction().begin();
      PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
      change.accept(order);
      em.persist(order);
      var thrown =
          assertThatThrownBy(() -> em.getTransaction().commit())
              .hasStackTraceContaining(OutboxException.class.getName());
      for (String message : messages) {
        thrown.hasStackTraceContaining(message);
      }
    } finally {
      if (em.getTransaction().isActive()) {
        em.getTransaction().rollback();
      }
      em.close();
    }
    assertThat(outbox.rows()).isEmpty();
    inTransaction(e -> assertThat(e.find(PurchaseOrder.class, id)).isNull());
  }

  @Test
  void eventsOfADetachedAggregateWaitUntilItIsMergedAndFlushed() {
    long id = IDS.getAndIncrement();
    inTransaction(em -> em.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    outbox.clear();
    AtomicReference<PurchaseOrder> detached = new AtomicReference<>();
    inTransaction(em -> detached.set(em.find(PurchaseOrder.class, id)));

    detached.get().cancel("while detached");
    inTransaction(em -> em.persist(PurchaseOrder.place(IDS.getAndIncrement(), BigDecimal.ONE)));
    assertThat(outbox.rows()).extracting(Row::eventType).containsExactly("order.placed");
    outbox.clear();

    inTransaction(em -> em.merge(detached.get()));
    assertThat(outbox.rows())
        .extracting(Row::aggregateId, Row::eventType)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(Long.toString(id), "order.cancelled"));
    assertThat(detached.get().domainEvents()).isEmpty();
  }

  @Test
  void oneFlushWritesAllItsEventsAsOneMultiRowInsertAfterOneHeadUpsert() {
    inTransaction(
        em -> {
          for (int i = 0; i < 10; i++) {
            PurchaseOrder order = PurchaseOrder.place(IDS.getAndIncrement(), BigDecimal.ONE);
            order.announce(new TestEvents.Noted("second"));
            order.announce(new TestEvents.Noted("third"));
            em.persist(order);
          }
        });
    assertThat(outbox.rows()).hasSize(30);
    assertThat(counter.inserts())
        .singleElement()
        .satisfies(execution -> assertThat(execution.batch()).isFalse());
    // PostgreSQL: the head upsert and the insert are one statement; elsewhere the upsert, the
    // read-back of the heads it wrote, and the insert.
    assertThat(counter.all())
        .as("round trips of the flush to the outbox tables")
        .hasSize(database == TestDatabase.POSTGRESQL ? 1 : 3)
        .noneMatch(StatementCounter.Execution::batch);
    assertThat(outbox.heads())
        .hasSize(10)
        .allSatisfy(head -> assertThat(head.writeSeq()).isEqualTo(3));
  }

  @Test
  void aFlushOfMoreEventsThanOneStatementHoldsIsWrittenInChunksInOrder() {
    long id = IDS.getAndIncrement();
    inTransaction(
        em -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
          for (int i = 1; i < 250; i++) {
            order.announce(new TestEvents.Noted(Integer.toString(i)));
          }
          em.persist(order);
        });
    assertThat(counter.inserts()).hasSize(3).noneMatch(StatementCounter.Execution::batch);
    List<Row> rows = outbox.rows();
    assertThat(rows).hasSize(250);
    assertThat(rows)
        .extracting(Row::seq)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 250).boxed().toList());
    JacksonEventSerializer serializer = new JacksonEventSerializer();
    assertThat(rows.subList(1, 250))
        .extracting(Row::payload)
        .containsExactlyElementsOf(
            IntStream.range(1, 250)
                .mapToObj(i -> serializer.serialize(new TestEvents.Noted(Integer.toString(i))))
                .toList());
  }

  @Test
  void headersAndPayloadAreStoredExactly() {
    long id = IDS.getAndIncrement();
    String text = "Grüße 🚀 \"quoted\" \\ back\nslash 𝄞 " + "x".repeat(20_000);
    inTransaction(
        em -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
          order.announce(new TestEvents.Noted(text));
          order.cancel("with headers");
          em.persist(order);
        });
    List<Row> rows = outbox.rows();
    String expected = new JacksonEventSerializer().serialize(new TestEvents.Noted(text));
    assertThat(rows.get(1).payload()).isEqualTo(expected);
    assertThat(rows.get(2).headers()).isNotBlank();
    assertThat(parse(rows.get(2).headers()))
        .isEqualTo(Map.of("correlation-id", "c-" + id, "tenant", "acme"));
  }

  @Test
  void missingOutboxTableFailsAtStartNamingTheTableAndHowToCreateIt() {
    OutboxOptions options =
        OutboxOptions.builder().outboxTable("no_such_outbox").deadLetterTable(DEAD_LETTERS).build();
    assertThatThrownBy(
            () ->
                Emfs.create(
                        database.dataSource(),
                        Map.of(OutboxSettings.OPTIONS, options, Emfs.SCHEMA_ACTION, "none"))
                    .close())
        .hasStackTraceContaining("The outbox table 'no_such_outbox' does not exist")
        .hasStackTraceContaining("V1__outbox_tables.sql")
        .hasStackTraceContaining("createSchema(true)");
  }

  @Test
  void disabledOutboxWritesNothingAndChecksNoTable() {
    try (SessionFactory disabled =
        Emfs.create(
            database.dataSource(),
            Map.of(
                OutboxSettings.ENABLED, "false", OutboxSettings.OUTBOX_TABLE, "no_such_outbox"))) {
      long id = IDS.getAndIncrement();
      disabled.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
      disabled.inTransaction(
          session -> assertThat(session.find(PurchaseOrder.class, id)).isNotNull());
    }
    assertThat(outbox.rows()).isEmpty();
  }

  @Test
  void explicitSendsAndHarvestedEventsOfOneAggregateKeepTheOrderTheyWereRaisedIn() {
    long id = IDS.getAndIncrement();
    String key = Long.toString(id);
    inTransaction(
        em -> {
          PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE); // registered: placed
          em.persist(order);
          HibernateOutbox.send(em, "PurchaseOrder", key, new TestEvents.Noted("sent 1"));
          order.cancel("registered after the send");
          HibernateOutbox.send(em, "PurchaseOrder", key, new TestEvents.Noted("sent 2"));
          HibernateOutbox.send(em, "Payment", "p-" + id, new TestEvents.Noted("no entity"));
        });

    List<Row> rows = outbox.rows().stream().filter(r -> r.aggregateId().equals(key)).toList();
    assertThat(rows)
        .extracting(Row::seq, Row::eventType)
        .containsExactly(
            tuple(1L, "order.placed"),
            tuple(2L, "Noted"),
            tuple(3L, "order.cancelled"),
            tuple(4L, "Noted"));
    assertThat(rows.get(1).payload()).contains("sent 1");
    assertThat(rows.get(3).payload()).contains("sent 2");
    assertThat(outbox.rows())
        .filteredOn(r -> r.aggregateType().equals("Payment"))
        .extracting(Row::aggregateId, Row::seq)
        .containsExactly(tuple("p-" + id, 1L));
  }

  @Test
  void anEventSentWithNoEntityChangeIsWrittenAtCommitAndARollbackTakesItBack() {
    long id = IDS.getAndIncrement();
    inTransaction(em -> HibernateOutbox.send(em, "Payment", "p-" + id, new TestEvents.Noted("x")));
    assertThat(outbox.rows()).extracting(Row::aggregateId).containsExactly("p-" + id);

    EntityManager em = emf.createEntityManager();
    try {
      em.getTransaction().begin();
      HibernateOutbox.send(em, "Payment", "rolled-back", new TestEvents.Noted("y"));
      em.flush();
      em.getTransaction().rollback();
    } finally {
      em.close();
    }
    assertThat(outbox.rows()).extracting(Row::aggregateId).containsExactly("p-" + id);
  }

  @Test
  void aSendOutsideATransactionOrWithBadInputFailsNamingTheProblemAndSendsNothing() {
    EntityManager em = emf.createEntityManager();
    try {
      assertThatThrownBy(
              () -> HibernateOutbox.send(em, "Payment", "p", new TestEvents.Noted("outside")))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("HibernateOutbox.send needs a transaction")
          .hasMessageContaining("Nothing was sent");

      long id = IDS.getAndIncrement();
      em.getTransaction().begin();
      PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
      em.persist(order);
      assertThatThrownBy(() -> HibernateOutbox.send(em, "Payment", " ", new TestEvents.Noted("b")))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("The aggregate id of " + TestEvents.Noted.class.getName())
          .hasMessageContaining("but was \" \"");
      assertThatThrownBy(() -> HibernateOutbox.send(em, null, "p", new TestEvents.Noted("b")))
          .hasMessageContaining("The aggregate type of")
          .hasMessageContaining("but was null");
      assertThatThrownBy(
              () -> HibernateOutbox.send(em, "Payment", "p", new TestEvents.Unserializable("v")))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining(
              "Cannot serialize event " + TestEvents.Unserializable.class.getName())
          .hasMessageContaining("Nothing was sent");
      assertThat(order.domainEvents()).as("still pending on the aggregate").hasSize(1);
      em.getTransaction().commit();
    } finally {
      em.close();
    }
    assertThat(outbox.rows()).extracting(Row::eventType).containsExactly("order.placed");
  }

  void inTransaction(Consumer<EntityManager> work) {
    emf.inTransaction(work::accept);
  }

  static List<Row> rowsInsideTransaction(EntityManager em) {
    return em.unwrap(Session.class)
        .doReturningWork(connection -> OutboxTable.rows(connection, TABLE));
  }

  private static Map<?, ?> parse(String json) {
    try {
      return new ObjectMapper().readValue(json, Map.class);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
