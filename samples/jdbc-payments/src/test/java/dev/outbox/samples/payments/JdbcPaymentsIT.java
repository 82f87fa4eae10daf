package dev.outbox.samples.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.Injector;
import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.DeadLetterService;
import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.testkit.RequiredServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The plain JDBC application on the real PostgreSQL and RabbitMQ of the machine, with no Hibernate
 * and no JPA on the class path: the demo end to end, and the outbox's promises one by one through
 * the same Guice wiring (JdbcOutboxModule + RabbitMqOutboxModule): committed events in order per
 * aggregate, nothing from a rolled-back transaction, an event RabbitMQ refuses dead-lettered after
 * the configured attempts, and delivered rows cleaned up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class JdbcPaymentsIT {

  private static final PaymentTables TABLES = new PaymentTables("jdbc_payments_it");
  private static final int MAX_ATTEMPTS = 3;

  /** An event type no queue is bound to: RabbitMQ returns it as unroutable. */
  @EventType("audit.noted")
  record AuditNoted(String text) implements DomainEvent {}

  private PaymentsDatabase database;
  private PaymentEventsQueue queue;
  private DeliveryTracker tracker;
  private Injector injector;
  private Outbox outbox;

  @BeforeAll
  void serversRun() {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable(
        "RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached (user guest/guest)");
  }

  @BeforeEach
  void wire() throws Exception {
    database = PaymentsDatabase.open(PaymentsArguments.DEFAULT_JDBC_URL, 4);
    TABLES.recreate(database.dataSource(), List.of("m-1"));
    queue = PaymentEventsQueue.open(PaymentsArguments.DEFAULT_AMQP_URI, exchangeName());
    tracker = new DeliveryTracker();
    queue.consume(tracker);
    OutboxOptions options =
        PaymentsWiring.outboxOptions(TABLES)
            .maxAttempts(MAX_ATTEMPTS)
            .retryPolicy(RetryPolicy.exponential(Duration.ofMillis(50), 1.0, Duration.ofMillis(50)))
            .build();
    injector =
        PaymentsWiring.injector(database.dataSource(), TABLES, options, queue.publisherOptions());
    outbox = injector.getInstance(Outbox.class);
    outbox.start();
  }

  @AfterEach
  void tearDown() {
    if (outbox != null) {
      outbox.close();
    }
    if (queue != null) {
      queue.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void theTestClassPathHoldsNoHibernateAndNoJpa() {
    assertThatThrownBy(() -> Class.forName("org.hibernate.Session"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("jakarta.persistence.EntityManager"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("javax.persistence.EntityManager"))
        .isInstanceOf(ClassNotFoundException.class);
    assertThat(
            Arrays.asList(System.getProperty("java.class.path").split(java.io.File.pathSeparator)))
        .noneMatch(entry -> entry.contains("hibernate") || entry.contains("persistence"));
  }

  @Test
  void theDemoDeliversEveryEventOnceInOrderAndCleansUp() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        PaymentsDemo.run(
            new String[] {"--payments", "120", "--threads", "3"},
            new PaymentTables("jdbc_payments_it_demo"),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    String output = out.toString(StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(exit).as(output + err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(output)
        .contains(
            "summary: received 480/480 events, 0 duplicates, 0 out of order, 0 dead letters;"
                + " 12 refused captures sent nothing; cleanup deleted 480 delivered rows, 0 left");
  }

  @Test
  void anUnreachableRabbitMqIsExplainedInOneLineWithoutItsPassword() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        PaymentsDemo.run(
            new String[] {"--amqp-uri", "amqp://guest:s3cret@127.0.0.1:1/%2F"},
            new PaymentTables("jdbc_payments_it_demo"),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .contains("RabbitMQ is not reachable at amqp://guest:****@127.0.0.1:1", "rabbitmq-server")
        .doesNotContain("s3cret");
  }

  @Test
  void committedEventsArriveInOrderPerAggregateAndRolledBackOnesNever() throws SQLException {
    PaymentService service = injector.getInstance(PaymentService.class);
    JdbcOutbox jdbcOutbox = injector.getInstance(JdbcOutbox.class);
    service.request("p-1", "m-1", new BigDecimal("10.00"));
    service.authorize("p-1");
    assertThat(service.capture("p-1", new BigDecimal("10.01")))
        .as("over-capture refused")
        .isFalse();
    assertThat(service.capture("p-1", new BigDecimal("10.00"))).isTrue();
    assertThatThrownBy(
            () ->
                jdbcOutbox.inTransaction(
                    connection -> {
                      jdbcOutbox.send(
                          connection,
                          PaymentService.PAYMENT,
                          "p-2",
                          new PaymentRequested("p-2", "m-1", BigDecimal.ONE, 1));
                      throw new SQLException("the business write failed");
                    }))
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("rolled back");
    // Committed after the rollback on the same aggregate: a leaked event would arrive before it.
    service.request("p-2", "m-1", new BigDecimal("5.00"));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tracker.lastSequence(PaymentService.PAYMENT, "p-2") == 1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tracker.lastSequence(PaymentService.PAYMENT, "p-1") == 3);
    assertThat(tracker.lastSequence(PaymentService.MERCHANT, "m-1")).isEqualTo(1);
    assertThat(tracker.received()).as("3 + 1 of p-1 and m-1, 1 of p-2").isEqualTo(5);
    assertThat(tracker.outOfOrder()).isZero();
    assertThat(tracker.duplicates()).isZero();
    assertThat(outboxRows())
        .as("rows written: the refused capture's and the rollback's are not")
        .isEqualTo(5);
  }

  @Test
  void anEventRabbitMqRefusesIsDeadLetteredAfterTheConfiguredAttemptsAndTheAggregateGoesOn() {
    PaymentService service = injector.getInstance(PaymentService.class);
    JdbcOutbox jdbcOutbox = injector.getInstance(JdbcOutbox.class);
    jdbcOutbox.inTransaction(
        connection -> {
          jdbcOutbox.send(
              connection, PaymentService.PAYMENT, "p-3", new AuditNoted("routed nowhere"));
          return null;
        });
    service.request("p-3", "m-1", new BigDecimal("7.00"));

    DeadLetterService deadLetters = injector.getInstance(DeadLetterService.class);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> deadLetters.count(DeadLetterQuery.all()) == 1);
    DeadLetter deadLetter = deadLetters.list(DeadLetterQuery.all()).get(0);
    assertThat(deadLetter.message().eventType()).isEqualTo("audit.noted");
    assertThat(deadLetter.message().aggregateId()).isEqualTo("p-3");
    assertThat(deadLetter.message().attempts()).isEqualTo(MAX_ATTEMPTS);
    assertThat(deadLetter.lastError()).contains("unroutable");

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tracker.lastSequence(PaymentService.PAYMENT, "p-3") == 1);
    assertThat(tracker.received()).isEqualTo(1);
  }

  @Test
  void cleanupDeletesTheDeliveredRows() throws SQLException {
    PaymentService service = injector.getInstance(PaymentService.class);
    service.request("p-4", "m-1", new BigDecimal("3.00"));
    service.authorize("p-4");
    await().atMost(Duration.ofSeconds(30)).until(() -> tracker.received() == 2);
    await().atMost(Duration.ofSeconds(30)).until(() -> outbox.health().pending() == 0);
    assertThat(outboxRows()).isEqualTo(2);

    assertThat(outbox.cleanUpOnce()).isEqualTo(2);
    assertThat(outboxRows()).isZero();
  }

  private long outboxRows() throws SQLException {
    String table = injector.getInstance(OutboxOptions.class).outboxTable();
    try (Connection connection = database.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static String exchangeName() {
    byte[] suffix = new byte[4];
    new SecureRandom().nextBytes(suffix);
    return "jdbc-payments-it-" + HexFormat.of().formatHex(suffix);
  }
}
