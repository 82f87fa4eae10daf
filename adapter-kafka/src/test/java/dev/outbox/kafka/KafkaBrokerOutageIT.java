package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.kafka.testing.BackgroundConsumer;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.e2e.E2eDatabase;
import dev.outbox.testkit.e2e.EventWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker outage is not the messages' fault, end to end: Hibernate on PostgreSQL writes events,
 * the outbox publishes them through this adapter to a real Kafka broker in this JVM, with a short
 * retry budget (3 attempts, 200 ms apart, 2 s publish timeout). An outage several times longer than
 * that budget, and credentials the broker refuses, dead-letter nothing and count no attempt; a
 * message too large for its topic is still dead-lettered.
 *
 * <p>One broker for the class, with a listener reached only through a proxy (the outage cuts the
 * proxy: the broker and the test's consumer stay up) and a SASL listener (the credentials).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class KafkaBrokerOutageIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerOutageIT.class);
  private static final String USER = "outbox";
  private static final String PASSWORD = "outbox-secret";
  private static final int PARTITIONS = 6;
  private static final Duration OUTAGE = Duration.ofSeconds(8);
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(5);

  private EmbeddedKafka kafka;

  @BeforeAll
  void startServers() {
    RequiredServer.assumePostgres();
    kafka = EmbeddedKafka.builder().proxied().saslUser(USER, PASSWORD).start();
  }

  @AfterAll
  void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void outageLongerThanTheRetryBudgetDeadLettersNothingAndEverythingArrivesInOrderSoonAfter()
      throws Exception {
    String type = TestMessages.aggregateType("outage");
    kafka.createTopic(type, PARTITIONS);
    try (E2eDatabase db = E2eDatabase.start("kafka_outage_budget");
        Outbox outbox = db.outbox(publisher(kafka.proxiedBootstrapServers()), shortBudget(db))) {
      outbox.start();
      EventWriter.Written before = db.writer(type).write(40, 20, 4);
      awaitNothingPending(db, Duration.ofSeconds(30));

      kafka.proxy().down();
      long downAt = System.nanoTime();
      EventWriter.Written during = db.writer(type).write(200, 20, 4);
      Watch watch = new Watch();
      while (System.nanoTime() - downAt < OUTAGE.toNanos()) {
        watch.sample(db, outbox);
        Thread.sleep(250);
      }
      long pendingAtReturn = db.countOutbox("PENDING");
      kafka.proxy().up();
      long upAt = System.nanoTime();
      awaitNothingPending(db, Duration.ofSeconds(60));
      Duration recovery = Duration.ofNanos(System.nanoTime() - upAt);

      Map<String, Integer> expected = new LinkedHashMap<>(before.eventsPerAggregate());
      expected.putAll(during.eventsPerAggregate());
      DeliveryCheck check = DeliveryCheck.expecting(expected);
      try (BackgroundConsumer consumer =
          new BackgroundConsumer(kafka.bootstrapServers(), type, check)) {
        check.awaitComplete(Duration.ofSeconds(60));
        Thread.sleep(500); // late duplicates or strays, if any, would arrive now
      }
      LOG.info(
          "Outage of {} ms (retry budget: 3 attempts 200 ms apart): {} pending at the broker's"
              + " return, all acknowledged {} ms after it; during the outage at most {} attempts"
              + " on a head, {} dead letters, health said unavailable since {} ({}); {}",
          OUTAGE.toMillis(),
          pendingAtReturn,
          recovery.toMillis(),
          watch.maxAttempts,
          watch.maxDeadLetters,
          watch.unavailableSince,
          watch.reason,
          check.summary());
      System.out.printf(
          "KafkaBrokerOutageIT: delivered within %.2f s of the broker's return%n",
          recovery.toMillis() / 1000.0);

      assertThat(pendingAtReturn).as("held during the outage").isPositive();
      assertThat(watch.unavailableSince).as("health during the outage").isNotNull();
      assertThat(watch.maxAttempts).as("attempts counted during the outage").isZero();
      assertThat(watch.maxDeadLetters).isZero();
      assertThat(db.countDeadLetters()).isZero();
      assertThat(maxAttempts(db)).as("attempts on the heads afterwards").isZero();
      check.assertDeliveredInOrder();
      assertThat(recovery)
          .as("from the broker's return to the last acknowledgement")
          .isLessThan(RECOVERY_BOUND);
      assertThat(outbox.health().brokerUnavailableSince()).as("health after the return").isNull();
    }
  }

  @Test
  void messageLargerThanItsTopicAllowsIsDeadLetteredWhileOtherAggregatesAreDelivered()
      throws Exception {
    String type = TestMessages.aggregateType("healthy");
    String poison = TestMessages.aggregateType("poison");
    kafka.createTopic(type, PARTITIONS);
    // Every record on this topic is larger than it accepts: the broker refuses it for its size.
    kafka.createTopic(poison, 1, Map.of("max.message.bytes", "100"));
    try (E2eDatabase db = E2eDatabase.start("kafka_poison");
        Outbox outbox = db.outbox(publisher(kafka.bootstrapServers()), shortBudget(db))) {
      outbox.start();
      db.writer(poison).write(1, 1, 1);
      EventWriter.Written healthy = db.writer(type).write(100, 10, 2);

      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> db.countDeadLetters() == 1 && db.countOutbox("PENDING") == 0);
      DeliveryCheck check = DeliveryCheck.expecting(healthy.eventsPerAggregate());
      try (BackgroundConsumer consumer =
          new BackgroundConsumer(kafka.bootstrapServers(), type, check)) {
        check.awaitComplete(Duration.ofSeconds(60));
      }
      String[] deadLetter =
          queryRow(db, "SELECT attempts, last_error FROM " + db.options().deadLetterTable());
      LOG.info(
          "Poison: dead-lettered after {} attempt(s): {}; {}",
          deadLetter[0],
          deadLetter[1],
          check.summary());

      // Too large is permanent: one attempt, not maxAttempts, and not an outage.
      assertThat(Integer.parseInt(deadLetter[0])).isEqualTo(1);
      assertThat(deadLetter[1]).contains("RecordTooLargeException");
      check.assertDeliveredInOrderExactlyOnce();
      assertThat(outbox.health().brokerUnavailableSince()).isNull();
    }
  }

  @Test
  void refusedCredentialsHoldEverythingSaySoAndTheRightOnesDeliverItAllInOrder() throws Exception {
    String type = TestMessages.aggregateType("credentials");
    kafka.createTopic(type, PARTITIONS);
    try (E2eDatabase db = E2eDatabase.start("kafka_creds")) {
      OutboxOptions options = shortBudget(db);
      EventWriter.Written written;
      Watch watch = new Watch();
      try (Outbox refused = db.outbox(saslPublisher("not-" + PASSWORD), options)) {
        refused.start();
        written = db.writer(type).write(100, 10, 2);
        long start = System.nanoTime();
        while (System.nanoTime() - start < OUTAGE.toNanos() / 2) {
          watch.sample(db, refused);
          Thread.sleep(250);
        }
        LOG.info(
            "Refused credentials: {} pending, at most {} attempts on a head, {} dead letters;"
                + " health: unavailable since {}: {}",
            db.countOutbox("PENDING"),
            watch.maxAttempts,
            watch.maxDeadLetters,
            watch.unavailableSince,
            watch.reason);
        assertThat(db.countOutbox("PENDING")).isEqualTo(written.total());
        // The engine gives the root cause (SaslAuthenticationException: Authentication failed:
        // Invalid username or password); the adapter's own message adds the user and the fix.
        assertThat(refused.health().brokerUnavailableReason()).isNotNull().doesNotContain(PASSWORD);
        assertThat(refused.health().brokerUnavailableReason().toLowerCase(java.util.Locale.ROOT))
            .containsAnyOf("credential", "authentic");
      }
      assertThat(watch.maxAttempts).isZero();
      assertThat(watch.maxDeadLetters).isZero();

      try (Outbox fixed = db.outbox(saslPublisher(PASSWORD), options)) {
        fixed.start();
        long start = System.nanoTime();
        awaitNothingPending(db, Duration.ofSeconds(60));
        LOG.info(
            "Right credentials: everything acknowledged {} ms after the restart",
            Duration.ofNanos(System.nanoTime() - start).toMillis());
      }
      DeliveryCheck check = DeliveryCheck.expecting(written.eventsPerAggregate());
      try (BackgroundConsumer consumer =
          new BackgroundConsumer(kafka.bootstrapServers(), type, check)) {
        check.awaitComplete(Duration.ofSeconds(60));
      }
      check.assertDeliveredInOrderExactlyOnce();
      assertThat(db.countDeadLetters()).isZero();
    }
  }

  /** What the outbox shows while the broker is away, sampled. */
  private static final class Watch {
    long maxAttempts;
    long maxDeadLetters;
    Object unavailableSince;
    String reason;

    void sample(E2eDatabase db, Outbox outbox) {
      maxAttempts = Math.max(maxAttempts, maxAttempts(db));
      maxDeadLetters = Math.max(maxDeadLetters, db.countDeadLetters());
      var health = outbox.health();
      if (health.brokerUnavailableSince() != null) {
        unavailableSince = health.brokerUnavailableSince();
        reason = health.brokerUnavailableReason();
      }
    }
  }

  /** The short budget: an outage of a few seconds would have dead-lettered everything before. */
  private static OutboxOptions shortBudget(E2eDatabase db) {
    return db.options().toBuilder()
        .maxAttempts(3)
        .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(200)))
        .brokerProbeInterval(Duration.ofMillis(250))
        .publishTimeout(Duration.ofSeconds(2))
        .leaseDuration(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .build();
  }

  private static KafkaEventPublisher publisher(String bootstrapServers) {
    return new KafkaEventPublisher(options(bootstrapServers).build());
  }

  private KafkaEventPublisher saslPublisher(String password) {
    KafkaPublisherOptions.Builder options = options(kafka.saslBootstrapServers());
    EmbeddedKafka.saslProperties(USER, password).forEach(options::producerProperty);
    return new KafkaEventPublisher(options.build());
  }

  /**
   * The producer gives up on a record within 3 s, under the outbox's hard cap (twice the 2 s
   * publish timeout): a send cut by the outage then ends with the producer's own timeout, a broker
   * fault, and its aggregate is due again at once. With the default 30 s the hard cap would
   * recreate the producer, and the aggregates it held would wait for their lease to run out.
   */
  private static KafkaPublisherOptions.Builder options(String bootstrapServers) {
    return KafkaPublisherOptions.builder()
        .bootstrapServers(bootstrapServers)
        .metadataTimeout(Duration.ofSeconds(2))
        .producerProperty("delivery.timeout.ms", "3000")
        .producerProperty("request.timeout.ms", "2000");
  }

  private static void awaitNothingPending(E2eDatabase db, Duration atMost) {
    Awaitility.await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> db.countOutbox("PENDING") == 0);
  }

  private static long maxAttempts(E2eDatabase db) {
    return Long.parseLong(
        queryRow(db, "SELECT coalesce(max(attempts), 0) FROM " + db.options().headTable())[0]);
  }

  private static String[] queryRow(E2eDatabase db, String sql) {
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      assertThat(row.next()).as("a row from %s", sql).isTrue();
      String[] values = new String[row.getMetaData().getColumnCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = row.getString(i + 1);
      }
      return values;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
