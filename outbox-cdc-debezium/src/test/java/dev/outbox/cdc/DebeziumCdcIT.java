package dev.outbox.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.e2e.DeliveryCheck;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CDC mode end to end: aggregates written through Hibernate from concurrent threads on a private
 * PostgreSQL with {@code wal_level=logical}; Debezium's embedded engine with the PostgreSQL
 * connector (pgoutput), the outbox event router and {@link OutboxWireHeaders}, configured by {@link
 * OutboxConnectorConfig}; the outbox itself started in CDC mode, deleting rows by age while the
 * connector streams.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DebeziumCdcIT {

  private static final Logger LOG = LoggerFactory.getLogger(DebeziumCdcIT.class);
  private static final Duration DELIVERY = Duration.ofSeconds(90);
  private static final List<String> STANDARD_ORDER =
      List.of(
          WireHeaders.MESSAGE_ID,
          WireHeaders.EVENT_TYPE,
          WireHeaders.AGGREGATE_TYPE,
          WireHeaders.AGGREGATE_ID,
          WireHeaders.SEQ,
          WireHeaders.EPOCH,
          WireHeaders.PREV_SEQ,
          WireHeaders.OCCURRED_AT,
          WireHeaders.CONTENT_TYPE,
          "tenant");

  private EmbeddedPostgres postgres;
  private SessionFactory emf;
  private Outbox outbox;
  private Path offsets;
  private OutboxConnectorConfig connector;
  private final ReceivedRecords received = new ReceivedRecords();
  private CdcEngine engine;

  @BeforeAll
  void start() throws IOException, SQLException {
    postgres =
        EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "4")
            .setServerConfig("max_wal_senders", "4")
            .start();
    DataSource dataSource = postgres.getPostgresDatabase();
    OutboxOptions options =
        OutboxOptions.builder()
            .deliveryMode(DeliveryMode.CDC)
            .createSchema(true)
            .retention(Duration.ZERO)
            .cleanupInterval(Duration.ofMillis(500))
            .headerProvider((event, type, id) -> Map.of("tenant", "acme"))
            .build();
    emf =
        new HibernatePersistenceConfiguration("outbox-cdc")
            .managedClasses(E2eAggregate.class)
            .property("hibernate.connection.datasource", dataSource)
            .property("jakarta.persistence.schema-generation.database.action", "create")
            .property(OutboxSettings.OPTIONS, options)
            .createEntityManagerFactory();
    execute(
        dataSource,
        "CREATE PUBLICATION outbox FOR TABLE " + options.outboxTable(),
        "SELECT pg_create_logical_replication_slot('outbox', 'pgoutput')");
    outbox = HibernateOutbox.create(emf);
    outbox.start();
    offsets = Files.createTempFile("outbox-cdc-offsets", ".dat");
    connector =
        OutboxConnectorConfig.builder(options)
            .database("localhost", postgres.getPort(), "postgres")
            .user("postgres", "not-checked-by-trust-auth")
            .build();
    engine = CdcEngine.start(connector, offsets, received);
  }

  @AfterAll
  void stop() throws IOException {
    if (engine != null) {
      engine.close();
    }
    if (outbox != null) {
      outbox.close();
    }
    if (emf != null) {
      emf.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    if (offsets != null) {
      Files.deleteIfExists(offsets);
    }
  }

  @Test
  void everyEventArrivesOnceOnItsTopicWithKeyIdAndWireHeadersInSeqOrderAndRolledBackOnesNever()
      throws Exception {
    String type = "cdc-order";
    try (var session = emf.openSession()) {
      var tx = session.beginTransaction();
      E2eAggregate doomed = new E2eAggregate("cdc-rolled-back", type);
      session.persist(doomed);
      doomed.step();
      session.flush();
      tx.rollback();
    }
    EventWriter.Written written =
        new EventWriter(emf, type, "cdc-once").eventsPerTransaction(5).write(600, 12, 4);
    DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());

    List<ReceivedRecords.Record> records = received.await(type, written.total(), DELIVERY);
    Map<String, Long> lastSeq = new HashMap<>();
    for (ReceivedRecords.Record record : records) {
      E2eAggregate.Stepped event =
          E2eAggregate.Stepped.parse(record.value().getBytes(StandardCharsets.UTF_8));
      check.record(record.key(), event.sequence(), record.headers().get(WireHeaders.MESSAGE_ID));
      assertThat(record.topic()).isEqualTo(type);
      assertThat(record.key()).isEqualTo(event.aggregateId());
      assertThat(record.headerNames()).as("the Kafka adapter's order").isEqualTo(STANDARD_ORDER);
      Map<String, String> headers = record.headers();
      UUID.fromString(headers.get(WireHeaders.MESSAGE_ID));
      assertThat(headers)
          .containsEntry(WireHeaders.EVENT_TYPE, E2eAggregate.Stepped.TYPE)
          .containsEntry(WireHeaders.AGGREGATE_TYPE, type)
          .containsEntry(WireHeaders.AGGREGATE_ID, event.aggregateId())
          .containsEntry(WireHeaders.CONTENT_TYPE, "application/json")
          .containsEntry("tenant", "acme");
      Instant occurredAt = Instant.parse(headers.get(WireHeaders.OCCURRED_AT));
      assertThat(headers.get(WireHeaders.OCCURRED_AT))
          .isEqualTo(DateTimeFormatter.ISO_INSTANT.format(occurredAt));
      assertThat(record.timestamp()).isEqualTo(occurredAt.toEpochMilli());
      long seq = Long.parseLong(headers.get(OutboxWireHeaders.SEQ));
      assertThat(seq)
          .as("seq of %s follows the one before", record.key())
          .isEqualTo(lastSeq.getOrDefault(record.key(), 0L) + 1);
      assertThat(headers.get(WireHeaders.PREV_SEQ))
          .as("CDC mode makes no dead letters: the previous seq is the one before")
          .isEqualTo(Long.toString(seq - 1));
      assertThat(Long.parseLong(headers.get(WireHeaders.EPOCH)))
          .as("the epoch of the aggregate's head, copied into its rows")
          .isPositive();
      lastSeq.put(record.key(), seq);
    }
    check.assertDeliveredInOrderExactlyOnce();
    assertThat(received.keys()).doesNotContain("cdc-rolled-back");
    LOG.info("CDC, one engine: {}", check.summary());
  }

  @Test
  void anEngineRestartedMidStreamLosesNothing() throws Exception {
    String type = "cdc-restart";
    EventWriter writer = new EventWriter(emf, type, "cdc-restart").eventsPerTransaction(5);
    ExecutorService background = Executors.newSingleThreadExecutor();
    try {
      Future<EventWriter.Written> writing = background.submit(() -> writer.write(1_000, 10, 4));
      received.await(type, 200, DELIVERY);
      engine.close();
      int beforeRestart = received.count(type);
      EventWriter.Written whileDown =
          new EventWriter(emf, type, "cdc-while-down").eventsPerTransaction(5).write(200, 4, 2);
      assertThat(received.count(type)).as("no engine runs").isEqualTo(beforeRestart);
      engine = CdcEngine.start(connector, offsets, received);
      EventWriter.Written written = writing.get(2, TimeUnit.MINUTES);

      Map<String, Integer> expected = new HashMap<>(written.eventsPerAggregate());
      expected.putAll(whileDown.eventsPerAggregate());
      DeliveryCheck check = DeliveryCheck.expecting(expected);
      received.awaitComplete(type, check, DELIVERY);
      check.assertDeliveredInOrder();
      LOG.info(
          "CDC, engine stopped after {} records and restarted: {}", beforeRestart, check.summary());
    } finally {
      background.shutdownNow();
    }
  }

  @Test
  void cleanupDeletesWhatTheConnectorReadAndTheDeletesEmitNothing() throws Exception {
    String type = "cdc-cleanup";
    EventWriter.Written written = new EventWriter(emf, type, "cdc-cleanup").write(50, 5, 2);
    received.await(type, written.total(), DELIVERY);

    long start = System.nanoTime();
    while (countRows() > 0 && System.nanoTime() - start < DELIVERY.toNanos()) {
      Thread.sleep(100);
    }
    assertThat(countRows()).as("retention zero: cleanup deletes every row read").isZero();
    assertThat(outbox.health().deliveryMode()).isEqualTo(DeliveryMode.CDC);
    String marker = "cdc-marker";
    EventWriter.Written after = new EventWriter(emf, marker, "cdc-marker").write(1, 1, 1);
    received.await(marker, after.total(), DELIVERY);
    assertThat(received.count(type))
        .as("the deletes produced no record (the router drops them)")
        .isEqualTo(written.total());
    assertThatThrownBy(outbox::runOnce).hasMessageContaining("CDC mode");
  }

  private long countRows() throws SQLException {
    try (Connection connection = postgres.getPostgresDatabase().getConnection();
        Statement statement = connection.createStatement();
        var rows = statement.executeQuery("SELECT count(*) FROM outbox_messages")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static void execute(DataSource dataSource, String... statements) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }
}
