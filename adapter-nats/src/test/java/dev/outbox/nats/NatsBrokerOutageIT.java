package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.nats.testing.HeadWatch;
import dev.outbox.nats.testing.JetStreamFixture;
import dev.outbox.nats.testing.NatsServerProcess;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.e2e.E2eAggregate;
import dev.outbox.testkit.e2e.E2eDatabase;
import dev.outbox.testkit.e2e.EventWriter;
import io.nats.client.Message;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox on PostgreSQL publishing to a private nats-server with JetStream (a free loopback
 * port, a store directory of its own: the shared server is never touched) while the broker is taken
 * away (a {@link TcpProxy} in front of it goes down), refuses the credentials, or refuses one
 * message. A failure of the broker counts no attempt and dead-letters nothing however long it
 * lasts, and everything is in the stream, in order per aggregate, soon after the broker is back; a
 * failure of the message (larger than its stream's {@code max_msg_size}) still ends in the dead
 * letters after {@code maxAttempts}. Short settings: 3 attempts 200 ms apart, a 2 s publish
 * timeout, a probe every 250 ms, so that the whole retry budget of a message is a few seconds at
 * most.
 */
@Timeout(180)
class NatsBrokerOutageIT {

  /** The aggregate type whose messages are stored: {@link #STREAM} captures its subjects. */
  private static final String ROUTED = "nats-outage";

  /** The aggregate type whose every message is larger than {@link #POISON_STREAM} takes. */
  private static final String POISON = "nats-poison";

  private static final String PREFIX = "natsout";
  private static final String STREAM = "NATS_OUTAGE";
  private static final String POISON_STREAM = "NATS_POISON";
  private static final String USER = "app";
  private static final String PASSWORD = "the-right-password";
  private static final String WRONG_PASSWORD = "not-the-password";

  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration OUTAGE = Duration.ofSeconds(8);
  private static final int MAX_ATTEMPTS = 3;

  /** The generous bound on delivering the backlog after the broker's return (target 2 s). */
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(5);

  private NatsServerProcess server;

  /** The test's own way in: the server's URL, with the user and password when it checks them. */
  private String adminUrl;

  private TcpProxy proxy;
  private E2eDatabase db;

  @AfterEach
  void stop() {
    if (proxy != null) {
      proxy.close();
    }
    if (server != null) {
      server.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void anOutageLongerThanTheRetryBudgetDeadLettersNothingCountsNoAttemptAndLosesNothing()
      throws Exception {
    start(NatsServerProcess.Settings.DEFAULTS, null);
    proxy = new TcpProxy("127.0.0.1", port(server.url()));
    String viaProxy = "nats://127.0.0.1:" + proxy.port();
    EventWriter.Written before;
    HeadWatch.Seen outage;
    OutboxHealth duringOutage;
    long pendingAtReturn;
    long attemptsAtReturn;
    Duration recovery;
    Map<String, Integer> expected = new HashMap<>();
    try (Outbox outbox = db.outbox(publisher(viaProxy, null), options())) {
      outbox.start();
      before = db.writer(ROUTED).write(40, 20, 2);
      await("the messages written before the cut published")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PUBLISHED") == before.total());

      proxy.down();
      long down = System.nanoTime();
      HeadWatch watch = HeadWatch.start(db);
      int steps = 10;
      stepEach(before.eventsPerAggregate().keySet(), steps);
      before.eventsPerAggregate().forEach((id, count) -> expected.put(id, count + steps));
      Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000));
      duringOutage = outbox.health();
      pendingAtReturn = db.countOutbox("PENDING");
      attemptsAtReturn = HeadWatch.maxAttempts(db);
      outage = watch.finish();

      proxy.up();
      long up = System.nanoTime();
      int total = before.total() + 20 * steps;
      try (JetStreamFixture nats = JetStreamFixture.at(server.url())) {
        await("every message in the stream after the broker's return")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> nats.count(STREAM) >= total);
      }
      recovery = Duration.ofNanos(System.nanoTime() - up);
      await("the outbox recorded every delivery")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PENDING") == 0);
    }
    DeliveryCheck check = read(expected);
    System.out.printf(
        "NatsBrokerOutageIT outage: %d s down, %d pending at the return, all in the stream %.2f s"
            + " after it; during the outage: %d samples, max attempts %d, max dead letters %d;"
            + " health: unavailable since %s: %s; %s%n",
        OUTAGE.toSeconds(),
        pendingAtReturn,
        recovery.toMillis() / 1000.0,
        outage.samples(),
        outage.maxAttempts(),
        outage.maxDeadLetters(),
        duringOutage.brokerUnavailableSince(),
        duringOutage.brokerUnavailableReason(),
        check.summary());

    assertThat(pendingAtReturn).as("messages held through the outage").isEqualTo(200);
    assertThat(outage.samples()).as("samples of the heads during the outage").isPositive();
    assertThat(outage.maxAttempts()).as("attempts counted during the outage").isZero();
    assertThat(attemptsAtReturn).as("attempts of any head at the return").isZero();
    assertThat(outage.maxDeadLetters()).as("dead letters during the outage").isZero();
    assertThat(duringOutage.brokerUnavailableSince()).as("health during the outage").isNotNull();
    assertThat(duringOutage.brokerUnavailableReason()).contains("NATS");
    assertThat(db.countDeadLetters()).as("dead letters").isZero();
    assertThat(HeadWatch.maxAttempts(db)).as("attempts of any head").isZero();
    assertThat(recovery)
        .as("backlog in the stream after the broker's return (measured %s)", recovery)
        .isLessThan(RECOVERY_BOUND);
    check.assertDeliveredInOrderExactlyOnce();
  }

  @Test
  void aMessageLargerThanItsStreamTakesIsStillDeadLetteredAfterMaxAttemptsWhileOthersAreDelivered()
      throws Exception {
    start(NatsServerProcess.Settings.DEFAULTS, null);
    EventWriter.Written good;
    OutboxHealth health;
    try (Outbox outbox = db.outbox(publisher(server.url(), null), options())) {
      outbox.start();
      db.writer(POISON).write(2, 1, 1);
      good = db.writer(ROUTED).write(100, 10, 4);
      await("the poison messages dead-lettered and the others published")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countDeadLetters() == 2 && db.countOutbox("PENDING") == 0);
      health = outbox.health();
    }
    List<Map<String, Object>> deadLetters = HeadWatch.deadLetters(db);
    System.out.printf("NatsBrokerOutageIT poison: dead letters %s%n", deadLetters);

    assertThat(deadLetters)
        .hasSize(2)
        .allSatisfy(
            row -> {
              assertThat(row.get("aggregate_type")).isEqualTo(POISON);
              assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(MAX_ATTEMPTS);
              assertThat(String.valueOf(row.get("last_error")))
                  .contains("JetStream rejected the message")
                  .contains("message size exceeds maximum");
            });
    assertThat(health.brokerUnavailableSince()).as("no outage for a poison message").isNull();
    DeliveryCheck check = read(good.eventsPerAggregate());
    check.assertDeliveredInOrderExactlyOnce();
  }

  @Test
  void refusedCredentialsHoldEverythingSaySoAndARestartWithTheRightPasswordDeliversInOrder()
      throws Exception {
    start(NatsServerProcess.Settings.DEFAULTS.withUser(USER, PASSWORD), USER + ":" + PASSWORD);
    EventWriter.Written written;
    OutboxHealth refused;
    HeadWatch.Seen held;
    long pending;
    long stored;
    try (Outbox outbox = db.outbox(publisher(server.url(), WRONG_PASSWORD), options())) {
      outbox.start();
      HeadWatch watch = HeadWatch.start(db);
      written = db.writer(ROUTED).write(60, 6, 2);
      Thread.sleep(OUTAGE.toMillis() / 2);
      refused = outbox.health();
      held = watch.finish();
      pending = db.countOutbox("PENDING");
      try (JetStreamFixture nats = JetStreamFixture.at(adminUrl)) {
        stored = nats.count(STREAM);
      }
    }
    System.out.printf(
        "NatsBrokerOutageIT credentials: %d pending, max attempts %d, max dead letters %d;"
            + " health: %s%n",
        pending, held.maxAttempts(), held.maxDeadLetters(), refused.brokerUnavailableReason());

    assertThat(pending).as("every message held").isEqualTo(written.total());
    assertThat(held.maxAttempts()).as("attempts counted while refused").isZero();
    assertThat(held.maxDeadLetters()).as("dead letters while refused").isZero();
    assertThat(stored).as("messages the stream took").isZero();
    assertThat(refused.brokerUnavailableSince()).isNotNull();
    assertThat(refused.brokerUnavailableReason())
        .contains("refused the credentials of user 'app'")
        .doesNotContain(WRONG_PASSWORD);

    try (Outbox outbox = db.outbox(publisher(server.url(), PASSWORD), options())) {
      outbox.start();
      await("every message delivered with the right password")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countOutbox("PENDING") == 0);
    }
    assertThat(db.countDeadLetters()).isZero();
    read(written.eventsPerAggregate()).assertDeliveredInOrderExactlyOnce();
  }

  /**
   * Starts the private server, its streams and the database.
   *
   * @param settings the server's settings
   * @param login {@code user:password} for the test's own connection, or {@code null}
   */
  private void start(NatsServerProcess.Settings settings, String login) throws Exception {
    server = NatsServerProcess.start(settings);
    adminUrl = login == null ? server.url() : server.url().replace("//", "//" + login + "@");
    try (JetStreamFixture setup = JetStreamFixture.at(adminUrl)) {
      setup.createStream(STREAM, PREFIX + "." + ROUTED + ".>");
      setup.createStreamWithMaxMessageSize(POISON_STREAM, 16, PREFIX + "." + POISON + ".>");
      setup.keep(STREAM); // they live in the server's temporary store
      setup.keep(POISON_STREAM);
    }
    db = E2eDatabase.start("nats_broker_outage");
  }

  /** Reads the stream of the routed messages into a check of what was expected. */
  private DeliveryCheck read(Map<String, Integer> expected) throws Exception {
    int total = expected.values().stream().mapToInt(Integer::intValue).sum();
    DeliveryCheck check = DeliveryCheck.expecting(expected);
    try (JetStreamFixture nats = JetStreamFixture.at(adminUrl)) {
      for (Message message :
          nats.read(STREAM, PREFIX + "." + ROUTED + ".>", total, Duration.ofSeconds(30))) {
        check.record(
            message.getHeaders().getFirst(WireHeaders.AGGREGATE_ID),
            E2eAggregate.Stepped.parse(message.getData()).sequence(),
            message.getHeaders().getFirst("Nats-Msg-Id"));
      }
    }
    return check;
  }

  /** Short settings: the whole retry budget of a message is about 3 × (2 s + 200 ms) at most. */
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

  /** Routes by aggregate type under {@link #PREFIX}; reconnects every 200 ms. */
  private static NatsEventPublisher publisher(String url, String password) {
    NatsPublisherOptions.Builder options =
        NatsPublisherOptions.builder()
            .servers(List.of(url))
            .subjectPrefix(PREFIX)
            .reconnectWait(Duration.ofMillis(200));
    if (password != null) {
      options.userPassword(USER, password);
    }
    return NatsEventPublisher.connect(options.build());
  }

  /** Commits {@code steps} more events of each aggregate, five per transaction. */
  private void stepEach(Set<String> aggregateIds, int steps) {
    for (int done = 0; done < steps; done += 5) {
      for (String id : aggregateIds) {
        db.emf()
            .inTransaction(
                session -> {
                  E2eAggregate aggregate = session.find(E2eAggregate.class, id);
                  for (int i = 0; i < 5; i++) {
                    aggregate.step();
                  }
                });
      }
    }
  }

  private static int port(String url) {
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
  }
}
