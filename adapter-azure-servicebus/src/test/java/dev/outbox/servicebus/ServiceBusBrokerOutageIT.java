package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.servicebus.testing.LocalServiceBus;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.e2e.E2eAggregate;
import dev.outbox.testkit.e2e.E2eDatabase;
import dev.outbox.testkit.e2e.EventWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox on PostgreSQL publishing through the real SDK to the local broker while the broker is
 * taken away ({@link TcpProxy} down), refuses the credentials, or refuses one message: a failure of
 * the broker counts no attempt and dead-letters nothing however long it lasts, and everything is
 * delivered, in order per aggregate, once the broker is back; a failure of the message still ends
 * in the dead letters after {@code maxAttempts}. Short settings: 3 attempts 200 ms apart, a 2 s
 * publish timeout, a probe every 250 ms. The delivery check reads the broker's store, not a
 * receiver (see {@link LocalServiceBus#storedMessages}).
 */
@Timeout(180)
class ServiceBusBrokerOutageIT {

  /** The entity of the aggregates' messages: the publisher routes by aggregate type. */
  private static final String QUEUE = "outage-servicebus";

  /** An aggregate type whose entity does not exist: its messages are unroutable. */
  private static final String MISSING_ENTITY = "missing-servicebus";

  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration OUTAGE = Duration.ofSeconds(8);
  private static final int MAX_ATTEMPTS = 3;

  /** The generous bound on delivering the backlog after the broker's return (target 2 s). */
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(5);

  private E2eDatabase db;
  private LocalServiceBus bus;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws Exception {
    db = E2eDatabase.start("servicebus_outage");
    bus = LocalServiceBus.start(LocalServiceBus.STANDARD_MAX_MESSAGE_SIZE);
    bus.createQueue(QUEUE);
    proxy = new TcpProxy("127.0.0.1", bus.port());
  }

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    if (bus != null) {
      bus.close();
    }
    if (db != null) {
      db.close();
    }
  }

  /**
   * Short settings: the whole retry budget of a message is about 3 × (2 s + 200 ms), under a third
   * of the outage.
   */
  private OutboxOptions options() {
    return db.options().toBuilder()
        .maxAttempts(MAX_ATTEMPTS)
        .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(200)))
        .brokerProbeInterval(Duration.ofMillis(250))
        .publishTimeout(PUBLISH_TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .leaseDuration(Duration.ofSeconds(5))
        .build();
  }

  /**
   * Routes by aggregate type. The try timeout is below the publish timeout, as the README asks: the
   * SDK retries a refused connection only after closing the last attempt, which takes half the try
   * timeout (at most 4 s), so a longer one than the publish timeout keeps the probe in flight at
   * the broker's return waiting (measured 1.6 to 1.9 s with the default 10 s, against 0.4 to 0.6
   * s).
   */
  private static ServiceBusEventPublisher publisher(String connectionString) {
    return ServiceBusEventPublisher.create(
        ServiceBusPublisherOptions.builder()
            .connectionString(connectionString)
            .entityResolver(OutboxMessage::aggregateType)
            .tryTimeout(Duration.ofSeconds(1))
            .build());
  }

  @Test
  void anOutageLongerThanTheRetryBudgetDeadLettersNothingCountsNoAttemptAndLosesNothing()
      throws Exception {
    Duration recovery;
    OutboxHealth duringOutage;
    Sample outage;
    long pendingAtReturn;
    EventWriter.Written before;
    EventWriter.Written during;
    try (Outbox outbox =
        db.outbox(publisher(LocalServiceBus.connectionString(proxy.port())), options())) {
      outbox.start();
      before = db.writer(QUEUE).write(20, 10, 2);
      await("a first message published before the cut")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PUBLISHED") > 0);

      proxy.down();
      long down = System.nanoTime();
      Sampler sampler = new Sampler();
      sampler.start();
      during = db.writer(QUEUE).write(100, 10, 4);
      Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000));
      duringOutage = outbox.health();
      pendingAtReturn = db.countOutbox("PENDING");
      outage = sampler.finish();

      proxy.up();
      long up = System.nanoTime();
      await("every message published after the broker's return")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> db.countOutbox("PENDING") == 0);
      recovery = Duration.ofNanos(System.nanoTime() - up);
    }
    DeliveryCheck check = storedAgainst(before, during);
    System.out.printf(
        "ServiceBusBrokerOutageIT outage: %d s down, %d pending at the return, all delivered"
            + " %.2f s after it; during the outage: %d samples, max attempts %d, max dead letters"
            + " %d; health: unavailable since %s: %s; %s%n",
        OUTAGE.toSeconds(),
        pendingAtReturn,
        recovery.toMillis() / 1000.0,
        outage.samples(),
        outage.maxAttempts(),
        outage.maxDeadLetters(),
        duringOutage.brokerUnavailableSince(),
        duringOutage.brokerUnavailableReason(),
        check.summary());

    assertThat(pendingAtReturn).as("messages held through the outage").isPositive();
    assertThat(outage.samples()).as("samples of the heads during the outage").isPositive();
    assertThat(outage.maxAttempts()).as("attempts counted during the outage").isZero();
    assertThat(outage.maxDeadLetters()).as("dead letters during the outage").isZero();
    assertThat(duringOutage.brokerUnavailableSince()).as("health during the outage").isNotNull();
    assertThat(db.countDeadLetters()).as("dead letters").isZero();
    assertThat(maxAttempts()).as("attempts of any head").isZero();
    assertThat(recovery)
        .as("backlog delivered after the broker's return (measured %s)", recovery)
        .isLessThan(RECOVERY_BOUND);
    check.assertDeliveredInOrder();
  }

  @Test
  void aMessageForAMissingEntityIsStillDeadLetteredAfterMaxAttemptsWhileTheOthersAreDelivered()
      throws Exception {
    EventWriter.Written good;
    OutboxHealth health;
    try (Outbox outbox = db.outbox(publisher(bus.connectionString()), options())) {
      outbox.start();
      db.writer(MISSING_ENTITY).write(2, 1, 1);
      good = db.writer(QUEUE).write(100, 10, 4);
      await("the poison messages dead-lettered and the others published")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countDeadLetters() == 2 && db.countOutbox("PENDING") == 0);
      health = outbox.health();
    }
    List<Map<String, Object>> deadLetters =
        rows("SELECT aggregate_type, seq, attempts, last_error FROM " + deadLetterTable());
    System.out.printf("ServiceBusBrokerOutageIT poison: dead letters %s%n", deadLetters);

    assertThat(deadLetters)
        .hasSize(2)
        .allSatisfy(
            row -> {
              assertThat(row.get("aggregate_type")).isEqualTo(MISSING_ENTITY);
              assertThat(row.get("attempts")).isEqualTo(MAX_ATTEMPTS);
              assertThat(String.valueOf(row.get("last_error"))).contains("does not exist");
            });
    assertThat(health.brokerUnavailableSince()).as("no outage for a poison message").isNull();
    storedAgainst(good).assertDeliveredInOrderExactlyOnce();
  }

  @Test
  void refusedCredentialsHoldEverythingSaySoAndARestartWithTheRightKeyDeliversInOrder()
      throws Exception {
    EventWriter.Written written;
    OutboxHealth refused;
    Sample held;
    long pending;
    try (Outbox outbox =
        db.outbox(
            publisher(LocalServiceBus.connectionString(bus.port(), "not-the-namespace-key")),
            options())) {
      outbox.start();
      Sampler sampler = new Sampler();
      sampler.start();
      written = db.writer(QUEUE).write(60, 6, 2);
      Thread.sleep(OUTAGE.toMillis() / 2);
      refused = outbox.health();
      held = sampler.finish();
      pending = db.countOutbox("PENDING");
    }
    System.out.printf(
        "ServiceBusBrokerOutageIT credentials: %d pending, max attempts %d, max dead letters %d;"
            + " health: %s%n",
        pending, held.maxAttempts(), held.maxDeadLetters(), refused.brokerUnavailableReason());

    assertThat(pending).as("every message held").isEqualTo(written.total());
    assertThat(held.maxAttempts()).as("attempts counted while refused").isZero();
    assertThat(held.maxDeadLetters()).as("dead letters while refused").isZero();
    assertThat(bus.messageCount(QUEUE)).as("messages the broker took").isZero();
    assertThat(refused.brokerUnavailableSince()).isNotNull();
    assertThat(refused.brokerUnavailableReason())
        .contains(
            "Service Bus refused the credentials of key name '" + LocalServiceBus.KEY_NAME + "'")
        .doesNotContain("not-the-namespace-key")
        .doesNotContain(LocalServiceBus.KEY);

    try (Outbox outbox = db.outbox(publisher(bus.connectionString()), options())) {
      outbox.start();
      await("every message published with the right key")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countOutbox("PENDING") == 0);
    }
    assertThat(db.countDeadLetters()).isZero();
    storedAgainst(written).assertDeliveredInOrderExactlyOnce();
  }

  /** What the queue holds, checked against what was written. */
  private DeliveryCheck storedAgainst(EventWriter.Written... written) {
    Map<String, Integer> expected = new HashMap<>();
    for (EventWriter.Written each : written) {
      expected.putAll(each.eventsPerAggregate());
    }
    DeliveryCheck check = DeliveryCheck.expecting(expected);
    for (LocalServiceBus.StoredMessage message : bus.storedMessages(QUEUE)) {
      check.record(
          message.partitionKey(),
          E2eAggregate.Stepped.parse(message.body()).sequence(),
          message.messageId());
    }
    return check;
  }

  private String headTable() {
    return db.options().headTable();
  }

  private String deadLetterTable() {
    return db.options().deadLetterTable();
  }

  /** The highest attempts column of any head. */
  private long maxAttempts() {
    return (Integer)
        rows("SELECT coalesce(max(attempts), 0) AS m FROM " + headTable()).get(0).get("m");
  }

  private List<Map<String, Object>> rows(String sql) {
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      List<Map<String, Object>> rows = new ArrayList<>();
      while (result.next()) {
        Map<String, Object> row = new HashMap<>();
        for (int c = 1; c <= result.getMetaData().getColumnCount(); c++) {
          row.put(result.getMetaData().getColumnLabel(c), result.getObject(c));
        }
        rows.add(row);
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The most attempts and dead letters seen while sampling. */
  private record Sample(long samples, long maxAttempts, long maxDeadLetters) {}

  /** Reads the heads' attempts and the dead letters every 100 ms on a thread of its own. */
  private final class Sampler extends Thread {
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private volatile boolean running = true;

    Sampler() {
      super("outage-sampler");
      setDaemon(true);
    }

    @Override
    public void run() {
      while (running) {
        attempts.accumulateAndGet(maxAttempts(), Math::max);
        deadLetters.accumulateAndGet(db.countDeadLetters(), Math::max);
        samples.incrementAndGet();
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    Sample finish() throws InterruptedException {
      running = false;
      join(5_000);
      return new Sample(samples.get(), attempts.get(), deadLetters.get());
    }
  }
}
