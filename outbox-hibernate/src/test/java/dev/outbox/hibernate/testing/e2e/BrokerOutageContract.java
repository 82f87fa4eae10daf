package dev.outbox.hibernate.testing.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.BrokerSwitch;
import dev.outbox.testkit.EventPublisherContract.Behind;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A broker outage is not the messages' fault, end to end: Hibernate on PostgreSQL ({@link
 * E2eDatabase}) writes events and the outbox publishes them through the adapter to its real broker
 * while the broker is taken away (a {@link TcpProxy} in front of it goes down: a shared broker is
 * never stopped), refuses the credentials, or refuses one message. A failure of the broker counts
 * no attempt and dead-letters nothing however long it lasts, the health says so, and everything
 * arrives, in order per aggregate, soon after the broker is back; a failure of the message still
 * ends in the dead letters after its attempts, and reports no outage. An adapter's {@code
 * *BrokerOutageIT} extends it and implements the hooks.
 *
 * <p>Short settings: {@value #MAX_ATTEMPTS} attempts 200 ms apart, a 2 s publish timeout, a probe
 * every 250 ms, so that the whole retry budget of a message, about 3 × (2 s + 200 ms), is under a
 * third of the {@link #OUTAGE}. Each test prepares aggregate types of its own ({@link
 * #prepareDestination(String)}); a consumer of the test's own ({@link #receive}) records what
 * arrives into a {@link DeliveryCheck}. Each test prints its figures on one line.
 *
 * <p>One instance runs all tests ({@link TestInstance.Lifecycle#PER_CLASS}), so a subclass may
 * start its broker, proxy and servers in a non-static {@code @BeforeAll}; each test gets a fresh
 * {@link E2eDatabase} named {@link #databaseName()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
public abstract class BrokerOutageContract {

  /** How many attempts a message may count before it is dead-lettered. */
  protected static final int MAX_ATTEMPTS = 3;

  /** The outbox's publish timeout. */
  protected static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);

  /** How long the broker is away: several times the whole retry budget of a message. */
  protected static final Duration OUTAGE = Duration.ofSeconds(8);

  /** The generous bound on delivering the backlog after the broker's return (target 2 s). */
  protected static final Duration RECOVERY_BOUND = Duration.ofSeconds(5);

  /** The password (or key) {@link #createPublisher(String)} is given for refused credentials. */
  protected static final String WRONG_PASSWORD = "not-the-right-password";

  /** How many events each aggregate raises while the broker is away. */
  private static final int STEPS = 10;

  /** How long late deliveries (duplicates, strays) are waited for before the final checks. */
  private static final Duration SETTLE = Duration.ofMillis(500);

  private final List<AutoCloseable> receivers = new ArrayList<>();
  private E2eDatabase db;

  /**
   * The name of the test's {@link E2eDatabase}, which names its outbox tables.
   *
   * @return lower case letters, digits and {@code _}, for example {@code rabbitmq_outage}
   */
  protected abstract String databaseName();

  /**
   * How the adapter names its broker in the reasons it gives for an outage.
   *
   * @return for example {@code RabbitMQ}
   */
  protected abstract String brokerName();

  /**
   * A publisher routing by aggregate type whose every connection to the broker passes through a
   * {@link TcpProxy} (the {@link BrokerSwitch}), with the right credentials. The contract turns the
   * switch up after the test and the outbox closes the publisher; closing the proxy is the
   * subclass's, which may share one proxy between tests.
   *
   * @return the publisher and its switch
   * @throws Exception when the proxy cannot be opened
   */
  protected abstract Behind createPublisherBehindProxy() throws Exception;

  /**
   * A publisher routing by aggregate type, connected to a broker that checks credentials, with this
   * password (or key). Creating it must not fail when the broker refuses the password.
   *
   * @param password {@link #password()} or {@link #WRONG_PASSWORD}
   * @return a new publisher; the outbox closes it
   * @throws Exception when it cannot be created
   */
  protected abstract EventPublisher createPublisher(String password) throws Exception;

  /**
   * The password (or key) the broker takes.
   *
   * @return the right password
   */
  protected abstract String password();

  /**
   * Whose credentials the adapter says were refused: the reason contains {@code refused the
   * credentials of} followed by this.
   *
   * @return for example {@code user 'guest'}
   */
  protected abstract String refusedCredentialsOf();

  /**
   * Creates on the broker what messages of this aggregate type need to be routed and received
   * (topic, queue and binding, stream, entity).
   *
   * @param aggregateType a fresh aggregate type
   * @throws Exception when the broker refuses
   */
  protected abstract void prepareDestination(String aggregateType) throws Exception;

  /**
   * Starts receiving the messages of a prepared aggregate type from the first one, on a consumer of
   * the test's own that bypasses the proxy, recording each {@link E2eAggregate.Stepped} event into
   * the check in arrival order ({@link DeliveryCheck#record}: the key or aggregate id, the event's
   * sequence, the message id).
   *
   * @param aggregateType a type passed to {@link #prepareDestination(String)} before
   * @param check the check to record into
   * @return what stops receiving; the contract closes it after the test
   * @throws Exception when the broker fails
   */
  protected abstract AutoCloseable receive(String aggregateType, DeliveryCheck check)
      throws Exception;

  /**
   * Prepares an aggregate type whose every message the broker refuses for the message's sake
   * (unroutable, too large, a missing entity).
   *
   * @return the type, its attempts and its error
   * @throws Exception when the broker refuses to set it up
   */
  protected abstract Poison preparePoison() throws Exception;

  /**
   * Whether the broker drops the duplicates an outage may cause (NATS's {@code Nats-Msg-Id}), so
   * that the outage test checks delivery exactly once rather than at least once.
   *
   * @return {@code false} by default
   */
  protected boolean deliversExactlyOnceAfterAnOutage() {
    return false;
  }

  /**
   * An aggregate type whose messages the broker refuses, and how the outbox must end them.
   *
   * @param aggregateType the prepared type
   * @param attempts the attempts each of its messages counts before it is dead-lettered: {@link
   *     #MAX_ATTEMPTS}, or 1 when the adapter calls the failure permanent
   * @param errorContains what each dead letter's last error must contain
   */
  public record Poison(String aggregateType, int attempts, List<String> errorContains) {}

  @BeforeEach
  void startDatabase() {
    db = E2eDatabase.start(databaseName());
  }

  @AfterEach
  void closeReceiversAndDatabase() throws Exception {
    for (AutoCloseable receiver : receivers) {
      receiver.close();
    }
    receivers.clear();
    if (db != null) {
      db.close();
    }
  }

  @Test
  void anOutageLongerThanTheRetryBudgetDeadLettersNothingCountsNoAttemptAndLosesNothing()
      throws Exception {
    String type = prepared("outage");
    Behind behind = createPublisherBehindProxy();
    try (Outbox outbox = db.outbox(behind.publisher(), options())) {
      outbox.start();
      EventWriter.Written before = db.writer(type).write(40, 20, 2);
      await("the messages written before the cut published")
          .atMost(Duration.ofSeconds(30))
          .until(() -> db.countOutbox("PUBLISHED") == before.total());

      behind.broker().down();
      long down = System.nanoTime();
      HeadSampler sampler = HeadSampler.start(db, outbox);
      EventWriter.Written all = db.writer(type).eventsPerTransaction(5).append(before, STEPS);
      DeliveryCheck check = receiving(type, all.eventsPerAggregate());
      Thread.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000));
      Held outage = held(outbox, sampler);

      behind.broker().up();
      Recovery recovery = awaitRecovery(check);
      Thread.sleep(SETTLE.toMillis());
      printOutage(outage, recovery, check);

      assertHeldThroughTheOutage(outage, all.total() - before.total());
      assertRecoveredInTime(recovery, check);
      assertThat(outbox.health().brokerUnavailableSince()).as("health after the return").isNull();
    } finally {
      behind.broker().up();
    }
  }

  @Test
  void aPoisonMessageIsStillDeadLetteredAfterItsAttemptsWhileTheOthersAreDeliveredInOrder()
      throws Exception {
    Poison poison = preparePoison();
    String type = prepared("healthy");
    try (Outbox outbox = db.outbox(createPublisher(password()), options())) {
      outbox.start();
      HeadSampler sampler = HeadSampler.start(db, outbox);
      db.writer(poison.aggregateType()).write(2, 1, 1);
      EventWriter.Written good = db.writer(type).write(100, 10, 4);
      DeliveryCheck check = receiving(type, good.eventsPerAggregate());
      await("the poison messages dead-lettered and the others published")
          .atMost(Duration.ofSeconds(60))
          .until(() -> db.countDeadLetters() == 2 && db.countOutbox("PENDING") == 0);
      assertThat(check.awaitComplete(Duration.ofSeconds(60))).as(check.summary()).isTrue();
      Thread.sleep(SETTLE.toMillis());
      Held held = held(outbox, sampler);
      List<E2eDatabase.DeadLetter> deadLetters = db.deadLetters();
      System.out.printf(
          "%s poison: %d samples, %d reporting an outage; dead letters %s; %s%n",
          name(),
          held.sample().samples(),
          held.sample().outageReports(),
          deadLetters,
          check.summary());

      assertDeadLettered(poison, deadLetters);
      assertThat(held.health().brokerUnavailableSince()).as("outage for a poison message").isNull();
      assertThat(held.sample().outageReports()).as("samples reporting an outage").isZero();
      check.assertDeliveredInOrderExactlyOnce();
    }
  }

  @Test
  void refusedCredentialsHoldEverythingSaySoAndARestartWithTheRightPasswordDeliversInOrder()
      throws Exception {
    String type = prepared("credentials");
    EventWriter.Written written;
    DeliveryCheck check;
    Held refused;
    try (Outbox outbox = db.outbox(createPublisher(WRONG_PASSWORD), options())) {
      outbox.start();
      HeadSampler sampler = HeadSampler.start(db, outbox);
      written = db.writer(type).write(60, 6, 2);
      check = receiving(type, written.eventsPerAggregate());
      Thread.sleep(OUTAGE.toMillis() / 2);
      refused = held(outbox, sampler);
    }
    Thread.sleep(SETTLE.toMillis());
    int taken = check.deliveries();

    long restart = System.nanoTime();
    try (Outbox outbox = db.outbox(createPublisher(password()), options())) {
      outbox.start();
      await("every message delivered with the right password")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> check.isComplete() && db.countOutbox("PENDING") == 0);
    }
    Duration delivered = Duration.ofNanos(System.nanoTime() - restart);
    Thread.sleep(SETTLE.toMillis());
    System.out.printf(
        "%s credentials: %d pending, %d taken by the broker, max attempts %d, max dead letters %d;"
            + " health: %s; with the right password all delivered %.2f s after the restart; %s%n",
        name(),
        refused.pending(),
        taken,
        refused.sample().maxAttempts(),
        refused.sample().maxDeadLetters(),
        refused.health().brokerUnavailableReason(),
        seconds(delivered),
        check.summary());

    assertHeldWhileRefused(refused, written.total(), taken);
    assertThat(db.countDeadLetters()).as("dead letters").isZero();
    check.assertDeliveredInOrderExactlyOnce();
  }

  /**
   * The short settings on the test's tables.
   *
   * @return the outbox's options
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

  /** What the outbox showed at the end of an outage or refusal, and what was sampled during it. */
  private record Held(
      OutboxHealth health, long pending, long attemptsAtEnd, HeadSampler.Sample sample) {}

  /** From the broker's return until the consumer had everything, and the outbox recorded it. */
  private record Recovery(Duration received, Duration acknowledged) {}

  private Held held(Outbox outbox, HeadSampler sampler) throws InterruptedException {
    OutboxHealth health = outbox.health();
    long pending = db.countOutbox("PENDING");
    long attempts = db.maxAttempts();
    return new Held(health, pending, attempts, sampler.finish());
  }

  private Recovery awaitRecovery(DeliveryCheck check) {
    long up = System.nanoTime();
    AtomicLong received = new AtomicLong(-1);
    AtomicLong acknowledged = new AtomicLong(-1);
    await("every message received and recorded after the broker's return")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              long since = System.nanoTime() - up;
              if (received.get() < 0 && check.isComplete()) {
                received.set(since);
              }
              if (acknowledged.get() < 0 && db.countOutbox("PENDING") == 0) {
                acknowledged.set(since);
              }
              return received.get() >= 0 && acknowledged.get() >= 0;
            });
    return new Recovery(Duration.ofNanos(received.get()), Duration.ofNanos(acknowledged.get()));
  }

  private void assertHeldThroughTheOutage(Held outage, long writtenDuringIt) {
    assertThat(outage.pending()).as("messages held through the outage").isEqualTo(writtenDuringIt);
    assertThat(outage.sample().samples()).as("samples of the heads during the outage").isPositive();
    assertThat(outage.sample().maxAttempts()).as("attempts counted during the outage").isZero();
    assertThat(outage.attemptsAtEnd()).as("attempts of any head at the return").isZero();
    assertThat(outage.sample().maxDeadLetters()).as("dead letters during the outage").isZero();
    assertThat(outage.health().brokerUnavailableSince()).as("health during the outage").isNotNull();
    assertThat(outage.health().brokerUnavailableReason())
        .as("the reason for the outage")
        .isNotBlank();
    assertThat(outage.health().brokerUnavailableReason()).contains(brokerName());
    assertThat(db.countDeadLetters()).as("dead letters").isZero();
    assertThat(db.maxAttempts()).as("attempts of any head").isZero();
  }

  private void assertRecoveredInTime(Recovery recovery, DeliveryCheck check) {
    assertThat(recovery.received())
        .as("backlog received after the broker's return (measured %s)", recovery.received())
        .isLessThan(RECOVERY_BOUND);
    assertThat(recovery.acknowledged())
        .as("backlog acknowledged after the broker's return (measured %s)", recovery.acknowledged())
        .isLessThan(RECOVERY_BOUND);
    if (deliversExactlyOnceAfterAnOutage()) {
      check.assertDeliveredInOrderExactlyOnce();
    } else {
      check.assertDeliveredInOrder();
    }
  }

  private static void assertDeadLettered(Poison poison, List<E2eDatabase.DeadLetter> deadLetters) {
    assertThat(deadLetters)
        .hasSize(2)
        .allSatisfy(
            deadLetter -> {
              assertThat(deadLetter.aggregateType()).isEqualTo(poison.aggregateType());
              assertThat(deadLetter.attempts()).isEqualTo(poison.attempts());
              assertThat(deadLetter.lastError()).contains(poison.errorContains());
            });
  }

  private void assertHeldWhileRefused(Held refused, long written, int taken) {
    assertThat(refused.pending()).as("every message held").isEqualTo(written);
    assertThat(refused.sample().maxAttempts()).as("attempts counted while refused").isZero();
    assertThat(refused.attemptsAtEnd()).as("attempts of any head while refused").isZero();
    assertThat(refused.sample().maxDeadLetters()).as("dead letters while refused").isZero();
    assertThat(taken).as("messages the broker took while refusing").isZero();
    OutboxHealth health = refused.health();
    assertThat(health.brokerUnavailableSince()).as("health while refused").isNotNull();
    assertThat(health.brokerUnavailableReason())
        .as("the reason for the refusal")
        .contains(brokerName())
        .contains("refused the credentials of " + refusedCredentialsOf())
        .doesNotContain(WRONG_PASSWORD);
    if (!refusedCredentialsOf().contains(password())) { // RabbitMQ's guest/guest names it as user
      assertThat(health.brokerUnavailableReason()).doesNotContain(password());
    }
  }

  private void printOutage(Held outage, Recovery recovery, DeliveryCheck check) {
    System.out.printf(
        "%s outage: %d s down, %d pending at the return, all received %.2f s and acknowledged"
            + " %.2f s after it; during the outage: %d samples, max attempts %d, max dead letters"
            + " %d; health: unavailable since %s: %s; %s%n",
        name(),
        OUTAGE.toSeconds(),
        outage.pending(),
        seconds(recovery.received()),
        seconds(recovery.acknowledged()),
        outage.sample().samples(),
        outage.sample().maxAttempts(),
        outage.sample().maxDeadLetters(),
        outage.health().brokerUnavailableSince(),
        outage.health().brokerUnavailableReason(),
        check.summary());
  }

  private String prepared(String purpose) throws Exception {
    String type = TestMessages.aggregateType(purpose);
    prepareDestination(type);
    return type;
  }

  private DeliveryCheck receiving(String type, Map<String, Integer> expected) throws Exception {
    DeliveryCheck check = DeliveryCheck.expecting(expected);
    receivers.add(receive(type, check));
    return check;
  }

  private String name() {
    return getClass().getSimpleName();
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }
}
