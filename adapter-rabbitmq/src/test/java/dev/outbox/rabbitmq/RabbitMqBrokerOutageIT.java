package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.rabbitmq.testing.HeadSampler;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.rabbitmq.testing.StepRecorder;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.e2e.E2eAggregate;
import dev.outbox.testkit.e2e.E2eDatabase;
import dev.outbox.testkit.e2e.EventWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The outbox on PostgreSQL publishing to the shared RabbitMQ while the broker is taken away (a
 * {@link TcpProxy} of the test's own goes down: the shared broker is never stopped), refuses the
 * credentials, or refuses one message. A failure of the broker counts no attempt and dead-letters
 * nothing however long it lasts, and everything arrives, in order per aggregate, soon after the
 * broker is back; a failure of the message (a returned, unroutable one) still ends in the dead
 * letters after {@code maxAttempts}. Short settings: 3 attempts 200 ms apart, a 2 s publish
 * timeout, a probe every 250 ms, so that the whole retry budget of a message is a few seconds at
 * most. A consumer on a queue bound to the test's exchange checks what arrives. Each test declares
 * its own exchange and queue (not durable) and deletes them.
 */
@Timeout(180)
class RabbitMqBrokerOutageIT {

  /** The aggregate type of the messages that are routed: the queue is bound to it. */
  private static final String ROUTED = "rabbit-outage";

  /** An aggregate type no queue is bound to: its messages come back with basic.return. */
  private static final String UNROUTABLE = "rabbit-poison";

  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration OUTAGE = Duration.ofSeconds(8);
  private static final int MAX_ATTEMPTS = 3;
  private static final String WRONG_PASSWORD = "not-the-guest-password";

  /** The generous bound on delivering the backlog after the broker's return (target 2 s). */
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(5);

  private RabbitMqTestBroker broker;
  private E2eDatabase db;
  private TcpProxy proxy;
  private String exchange;
  private String queue;
  private final StepRecorder recorder = new StepRecorder();

  @BeforeEach
  void start() throws Exception {
    broker = RabbitMqTestBroker.connect();
    db = E2eDatabase.start("rabbitmq_outage");
    exchange = RabbitMqTestBroker.name("outage");
    queue = RabbitMqTestBroker.name("outage-q");
    broker.declareExchange(exchange, false);
    broker.declareQueue(queue, false, exchange, ROUTED + ".#");
    broker.consume(queue, recorder::record);
    proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
  }

  @AfterEach
  void stop() throws Exception {
    if (proxy != null) {
      proxy.close();
    }
    if (broker != null) {
      broker.delete(exchange, queue);
      broker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void anOutageLongerThanTheRetryBudgetDeadLettersNothingCountsNoAttemptAndLosesNothing()
      throws Exception {
    EventWriter.Written before;
    HeadSampler.Sample outage;
    OutboxHealth duringOutage;
    long pendingAtReturn;
    long attemptsAtReturn;
    Duration recovery;
    DeliveryCheck check;
    try (Outbox outbox = db.outbox(publisher(proxy.port(), "guest"), options())) {
      outbox.start();
      before = db.writer(ROUTED).write(40, 20, 2);
      await("the messages written before the cut published")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PUBLISHED") == before.total());

      proxy.down();
      long down = System.nanoTime();
      HeadSampler sampler = new HeadSampler(db);
      sampler.start();
      int steps = 10;
      stepEach(before.eventsPerAggregate().keySet(), steps);
      Map<String, Integer> expected = new HashMap<>();
      before.eventsPerAggregate().forEach((id, count) -> expected.put(id, count + steps));
      check = recorder.attach(DeliveryCheck.expecting(expected));
      Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000));
      duringOutage = outbox.health();
      pendingAtReturn = db.countOutbox("PENDING");
      attemptsAtReturn = HeadSampler.maxAttempts(db);
      outage = sampler.finish();

      proxy.up();
      long up = System.nanoTime();
      await("every message delivered after the broker's return")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(check::isComplete);
      recovery = Duration.ofNanos(System.nanoTime() - up);
      await("the outbox recorded every delivery")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PENDING") == 0);
    }
    System.out.printf(
        "RabbitMqBrokerOutageIT outage: %d s down, %d pending at the return, all delivered %.2f s"
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
    assertThat(duringOutage.brokerUnavailableReason()).isNotBlank();
    assertThat(db.countDeadLetters()).as("dead letters").isZero();
    assertThat(HeadSampler.maxAttempts(db)).as("attempts of any head").isZero();
    assertThat(recovery)
        .as("backlog delivered after the broker's return (measured %s)", recovery)
        .isLessThan(RECOVERY_BOUND);
    check.assertDeliveredInOrder();
  }

  @Test
  void aReturnedMessageIsStillDeadLetteredAfterMaxAttemptsWhileTheOthersAreDelivered()
      throws Exception {
    EventWriter.Written good;
    OutboxHealth health;
    DeliveryCheck check;
    try (Outbox outbox = db.outbox(publisher(RabbitMqTestBroker.PORT, "guest"), options())) {
      outbox.start();
      db.writer(UNROUTABLE).write(2, 1, 1);
      good = db.writer(ROUTED).write(100, 10, 4);
      check = recorder.attach(DeliveryCheck.expecting(good.eventsPerAggregate()));
      await("the unroutable messages dead-lettered and the others published")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countDeadLetters() == 2 && db.countOutbox("PENDING") == 0);
      health = outbox.health();
    }
    List<Map<String, Object>> deadLetters = HeadSampler.deadLetters(db);
    System.out.printf("RabbitMqBrokerOutageIT poison: dead letters %s%n", deadLetters);

    assertThat(deadLetters)
        .hasSize(2)
        .allSatisfy(
            row -> {
              assertThat(row.get("aggregate_type")).isEqualTo(UNROUTABLE);
              assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(MAX_ATTEMPTS);
              assertThat(String.valueOf(row.get("last_error")))
                  .contains("unroutable")
                  .contains("NO_ROUTE");
            });
    assertThat(health.brokerUnavailableSince()).as("no outage for a poison message").isNull();
    assertThat(check.awaitComplete(Duration.ofSeconds(10))).as(check.summary()).isTrue();
    check.assertDeliveredInOrderExactlyOnce();
  }

  @Test
  void refusedCredentialsHoldEverythingSaySoAndARestartWithTheRightPasswordDeliversInOrder()
      throws Exception {
    EventWriter.Written written;
    OutboxHealth refused;
    HeadSampler.Sample held;
    long pending;
    try (Outbox outbox = db.outbox(publisher(RabbitMqTestBroker.PORT, WRONG_PASSWORD), options())) {
      outbox.start();
      HeadSampler sampler = new HeadSampler(db);
      sampler.start();
      written = db.writer(ROUTED).write(60, 6, 2);
      Thread.sleep(OUTAGE.toMillis() / 2);
      refused = outbox.health();
      held = sampler.finish();
      pending = db.countOutbox("PENDING");
    }
    System.out.printf(
        "RabbitMqBrokerOutageIT credentials: %d pending, max attempts %d, max dead letters %d;"
            + " health: %s%n",
        pending, held.maxAttempts(), held.maxDeadLetters(), refused.brokerUnavailableReason());

    assertThat(pending).as("every message held").isEqualTo(written.total());
    assertThat(held.maxAttempts()).as("attempts counted while refused").isZero();
    assertThat(held.maxDeadLetters()).as("dead letters while refused").isZero();
    assertThat(recorder.count()).as("messages the broker took").isZero();
    assertThat(refused.brokerUnavailableSince()).isNotNull();
    assertThat(refused.brokerUnavailableReason())
        .contains("refused the credentials of user 'guest'")
        .doesNotContain(WRONG_PASSWORD);

    DeliveryCheck check = recorder.attach(DeliveryCheck.expecting(written.eventsPerAggregate()));
    try (Outbox outbox = db.outbox(publisher(RabbitMqTestBroker.PORT, "guest"), options())) {
      outbox.start();
      assertThat(check.awaitComplete(Duration.ofSeconds(60))).as(check.summary()).isTrue();
    }
    assertThat(db.countDeadLetters()).isZero();
    check.assertDeliveredInOrderExactlyOnce();
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

  /** Routes by aggregate type; recovers a lost connection every 500 ms. */
  private RabbitMqEventPublisher publisher(int port, String password) {
    return new RabbitMqEventPublisher(
        RabbitMqTestBroker.options(exchange)
            .port(port)
            .username("guest")
            .password(password)
            .connectionTimeout(Duration.ofSeconds(2))
            .build());
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
}
