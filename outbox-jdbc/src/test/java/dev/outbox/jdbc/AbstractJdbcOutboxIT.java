package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.outbox.DeadLetterQuery;
import dev.outbox.DeliveryMode;
import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.OutboxTable.Row;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The outbox of an application on plain JDBC, on a real database, with no Hibernate on the class
 * path: sends in the caller's transaction, their order and seqs, the refusals, and the processor
 * delivering, dead-lettering and cleaning up. Each database runs it through a subclass.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcOutboxIT {

  private static final String TABLE = "jdbc_outbox";
  private static final String DEAD_LETTERS = "jdbc_dead_letters";

  record Noted(String text) implements DomainEvent {}

  record Poison(String text) implements DomainEvent {}

  record Unserializable(Object value) implements DomainEvent {}

  record Unnamed(String text) implements DomainEvent {
    @Override
    public String eventType() {
      return "";
    }
  }

  private final TestDatabase database;
  private DataSource dataSource;
  private JdbcOutbox jdbc;
  private OutboxTable table;

  AbstractJdbcOutboxIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void createOutbox() {
    database.assumeReachable();
    dataSource = database.dataSource();
    OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    jdbc =
        JdbcOutbox.create(
            dataSource,
            OutboxOptions.builder()
                .outboxTable(TABLE)
                .deadLetterTable(DEAD_LETTERS)
                .createSchema(true)
                .pollInterval(Duration.ofMillis(200))
                .maxAttempts(2)
                .retention(Duration.ofMillis(1))
                .build());
    table = new OutboxTable(dataSource, TABLE);
  }

  @AfterAll
  void dropTables() {
    if (dataSource != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    }
  }

  @BeforeEach
  void emptyTables() {
    table.clear();
    OutboxTable.deleteAll(dataSource, DEAD_LETTERS);
  }

  @Test
  void noHibernateIsOnTheClassPath() {
    assertThatThrownBy(() -> Class.forName("org.hibernate.Session"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void sendsOfOneTransactionGetGapFreeSeqsPerAggregateAndARollbackTakesThemBack() {
    jdbc.inTransaction(
        connection -> {
          jdbc.send(connection, "Payment", "p-1", new Noted("one"));
          jdbc.batch()
              .add("Payment", "p-1", new Noted("two"))
              .add("Order", "o-1", new Noted("three"))
              .send(connection);
          return null;
        });
    assertThatThrownBy(
            () ->
                jdbc.inTransaction(
                    connection -> {
                      jdbc.send(connection, "Payment", "p-1", new Noted("rolled back"));
                      throw new SQLException("the business write failed");
                    }))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("the business write failed");

    assertThat(table.rows())
        .extracting(Row::aggregateType, Row::aggregateId, Row::seq, Row::payload)
        .containsExactlyInAnyOrder(
            tuple("Payment", "p-1", 1L, "{\"text\":\"one\"}"),
            tuple("Payment", "p-1", 2L, "{\"text\":\"two\"}"),
            tuple("Order", "o-1", 1L, "{\"text\":\"three\"}"));
  }

  @Test
  void concurrentTransactionsSendingForOneAggregateGetOneGapFreeOrder() throws Exception {
    ExecutorService writers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        done.add(
            writers.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    String text = writer + "-" + i;
                    jdbc.inTransaction(
                        connection -> {
                          jdbc.send(connection, "Account", "a-1", new Noted(text));
                          return null;
                        });
                  }
                }));
      }
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      writers.shutdown();
    }
    assertThat(table.rows())
        .extracting(Row::seq)
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 100).boxed().toList());
  }

  @Test
  void aSendOnAnAutoCommitConnectionOrWithBadInputFailsNamingTheProblemAndWritesNothing()
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      assertThatThrownBy(() -> jdbc.send(connection, "Payment", "p-1", new Noted("x")))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("auto-commit mode")
          .hasMessageContaining("connection.setAutoCommit(false)")
          .hasMessageContaining("Nothing was written");
      connection.setAutoCommit(false);
      assertThatThrownBy(() -> jdbc.send(connection, "Payment", " ", new Noted("x")))
          .hasMessageContaining("The aggregate id of " + Noted.class.getName())
          .hasMessageContaining("but was \" \"");
      assertThatThrownBy(() -> jdbc.send(connection, null, "p-1", new Noted("x")))
          .hasMessageContaining("The aggregate type of")
          .hasMessageContaining("but was null");
      assertThatThrownBy(() -> jdbc.send(connection, "Payment", "p-1", new Unnamed("x")))
          .hasMessageContaining("The event type of " + Unnamed.class.getName())
          .hasMessageContaining("but was \"\"");
      assertThatThrownBy(() -> jdbc.send(connection, "Payment", "p-1", null))
          .hasMessageContaining("The event for aggregate Payment/p-1 is null");
      assertThatThrownBy(
              () -> jdbc.send(connection, "Payment", "p-1", new Unserializable(new Object())))
          .hasMessageContaining("Cannot serialize event " + Unserializable.class.getName())
          .hasMessageContaining("Nothing was written");
      connection.commit();
    }
    assertThat(table.rows()).isEmpty();
  }

  @Test
  void theProcessorDeliversInOrderDeadLettersWhatIsRefusedAndCleansUp() {
    RefusingPoison publisher = new RefusingPoison();
    try (Outbox outbox = jdbc.outbox(publisher)) {
      outbox.start();
      for (int i = 1; i <= 20; i++) {
        String text = Integer.toString(i);
        jdbc.inTransaction(
            connection -> {
              jdbc.batch()
                  .add("Order", "o-1", new Noted(text))
                  .add("Order", "o-2", new Noted(text))
                  .send(connection);
              return null;
            });
      }
      jdbc.inTransaction(
          connection -> {
            jdbc.send(connection, "Order", "o-3", new Poison("refused"));
            return null;
          });

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  publisher.published("o-1").size() == 20
                      && publisher.published("o-2").size() == 20
                      && outbox.deadLetters().count(DeadLetterQuery.all()) == 1);
      List<String> expected = LongStream.rangeClosed(1, 20).mapToObj(Long::toString).toList();
      assertThat(publisher.published("o-1")).containsExactlyElementsOf(expected);
      assertThat(publisher.published("o-2")).containsExactlyElementsOf(expected);
      assertThat(outbox.deadLetters().count(DeadLetterQuery.all().eventType("Poison")))
          .isEqualTo(1);

      await().atMost(Duration.ofSeconds(10)).until(() -> outbox.cleanUpOnce() == 0);
      assertThat(table.rows()).as("delivered rows cleaned up").isEmpty();
    }
  }

  @Test
  void theStreamOnTheWireSkipsADeadLetterForGoodAndBeginsAgainInALaterEpochAfterCleanup() {
    RefusingPoison publisher = new RefusingPoison();
    try (Outbox outbox = jdbc.outbox(publisher)) {
      outbox.start();
      send("o-9", new Noted("1"));
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.stream("o-9").size() == 1);
      send("o-9", new Poison("2"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> outbox.deadLetters().count(DeadLetterQuery.all()) == 1);
      send("o-9", new Noted("3"));
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.stream("o-9").size() == 2);
      long epoch = publisher.stream("o-9").get(0).get(0);
      assertThat(epoch).isPositive();
      assertThat(publisher.stream("o-9"))
          .as("(epoch, seq, prev seq): seq 2 was dead-lettered, and seq 3 says it will not come")
          .containsExactly(List.of(epoch, 1L, 0L), List.of(epoch, 3L, 1L));

      await().atMost(Duration.ofSeconds(10)).until(() -> outbox.cleanUpOnce() == 0);
      assertThat(table.heads()).as("cleanup deleted the idle head").isEmpty();
      send("o-9", new Noted("again"));

      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.stream("o-9").size() == 3);
      List<Long> again = publisher.stream("o-9").get(2);
      assertThat(again.get(0)).as("a later epoch").isGreaterThan(epoch);
      assertThat(again.subList(1, 3)).as("seq 1, nothing before it").containsExactly(1L, 0L);
    }
  }

  private void send(String aggregateId, DomainEvent event) {
    jdbc.inTransaction(
        connection -> {
          jdbc.send(connection, "Order", aggregateId, event);
          return null;
        });
  }

  @Test
  void twoOutboxesOfOneJdbcOutboxRunUnderDistinctIdsAndDeliverEachMessageOnceBetweenThem() {
    RefusingPoison firstBroker = new RefusingPoison();
    RefusingPoison secondBroker = new RefusingPoison();
    List<String> aggregates = List.of("o-1", "o-2", "o-3", "o-4", "o-5");
    try (Outbox first = jdbc.outbox(firstBroker);
        Outbox second = jdbc.outbox(secondBroker)) {
      first.start();
      second.start();

      String id = jdbc.options().instanceId();
      assertThat(first.health().instanceId()).isEqualTo(id);
      assertThat(second.health().instanceId()).isEqualTo(id + "-2");

      for (int i = 1; i <= 10; i++) {
        String text = Integer.toString(i);
        jdbc.inTransaction(
            connection -> {
              EventBatch batch = jdbc.batch();
              aggregates.forEach(aggregate -> batch.add("Order", aggregate, new Noted(text)));
              batch.send(connection);
              return null;
            });
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  aggregates.stream()
                          .mapToInt(
                              a ->
                                  firstBroker.published(a).size()
                                      + secondBroker.published(a).size())
                          .sum()
                      == 50);
      List<String> expected = LongStream.rangeClosed(1, 10).mapToObj(Long::toString).toList();
      for (String aggregate : aggregates) {
        List<String> delivered = new ArrayList<>(firstBroker.published(aggregate));
        delivered.addAll(secondBroker.published(aggregate));
        assertThat(delivered)
            .as("%s: every message once, by one of the two", aggregate)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
    }
  }

  @Test
  void anOutboxWithoutAPublisherIsOnlyForCdcWhereItCleansUpAndNeverPublishes() {
    assertThatThrownBy(() -> jdbc.outbox())
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("needs deliveryMode CDC")
        .hasMessageContaining("outbox(publisher)");
    OutboxOptions cdcOptions =
        jdbc.options().toBuilder().deliveryMode(DeliveryMode.CDC).createSchema(false).build();
    if (database != TestDatabase.POSTGRESQL) {
      assertThatThrownBy(() -> JdbcOutbox.create(dataSource, cdcOptions))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("PostgreSQL only");
      return;
    }
    JdbcOutbox cdc = JdbcOutbox.create(dataSource, cdcOptions);
    cdc.inTransaction(
        connection -> {
          cdc.send(connection, "Order", "o-cdc", new Noted("1"));
          return null;
        });
    assertThat(table.rows()).hasSize(1);
    try (Outbox outbox = cdc.outbox()) {
      assertThatThrownBy(outbox::runOnce).hasMessageContaining("CDC mode");
      await().atMost(Duration.ofSeconds(10)).until(() -> outbox.cleanUpOnce() == 0);
      assertThat(table.rows()).as("cleaned up by age, the connector read them long ago").isEmpty();
    }
  }

  /** Takes every message but those of {@link Poison}, which it refuses for good. */
  private static final class RefusingPoison implements EventPublisher {
    private final Map<String, List<String>> published = new ConcurrentHashMap<>();
    private final List<OutboxMessage> sent = new CopyOnWriteArrayList<>();

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
      List<PublishResult> results = new ArrayList<>();
      for (OutboxMessage message : messages) {
        if (message.eventType().equals("Poison")) {
          results.add(
              PublishResult.failed(
                  message.id(),
                  PublishException.permanent(message.id(), "test", "poison refused", null)));
        } else {
          sent.add(message);
          published
              .computeIfAbsent(message.aggregateId(), id -> new CopyOnWriteArrayList<>())
              .add(message.payload().replaceAll("\\D", ""));
          results.add(PublishResult.published(message.id()));
        }
      }
      return results;
    }

    List<String> published(String aggregateId) {
      return published.getOrDefault(aggregateId, List.of());
    }

    /** The published messages of an aggregate, as (epoch, seq, prevSeq), in publish order. */
    List<List<Long>> stream(String aggregateId) {
      return sent.stream()
          .filter(message -> message.aggregateId().equals(aggregateId))
          .map(message -> List.of(message.epoch(), message.seq(), message.prevSeq()))
          .toList();
    }
  }
}
