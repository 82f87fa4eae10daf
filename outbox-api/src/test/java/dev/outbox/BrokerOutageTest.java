package dev.outbox;

import static dev.outbox.testing.ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED;
import static dev.outbox.testing.ScriptedPublisher.Result.RETRYABLE_FAILURE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A broker outage is not the messages' fault: it counts no attempt, dead-letters nothing, sends one
 * message per probe interval, and everything goes out at once when the broker is back. A database
 * outage keeps the outcomes it could not record until it answers.
 */
class BrokerOutageTest {

  private static final Duration PROBE = Duration.ofMillis(100);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryOutboxStore store = new InMemoryOutboxStore(Clock.systemUTC());
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private Outbox outbox;

  private static OutboxOptions.Builder options() {
    return OutboxOptions.builder()
        .instanceId("outage-test")
        .maxAttempts(3)
        .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(10)))
        .brokerProbeInterval(PROBE)
        .publishTimeout(Duration.ofSeconds(2))
        .leaseDuration(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20));
  }

  private void start(OutboxOptions.Builder options) {
    outbox = Outbox.create(options.build(), flaky, publisher, Clock.systemUTC());
    outbox.start();
  }

  @AfterEach
  void close() {
    publisher.release();
    if (outbox != null) {
      outbox.close();
    }
  }

  private List<OutboxMessage> write(int aggregates, int perAggregate) {
    List<OutboxMessage> written = new ArrayList<>();
    for (int i = 0; i < perAggregate; i++) {
      for (int a = 0; a < aggregates; a++) {
        written.add(store.add("Order", "o-" + a, "order.placed"));
      }
    }
    return written;
  }

  @Test
  void anOutageLongerThanTheRetryBudgetDeadLettersNothingAndCountsNoAttempt() throws Exception {
    List<OutboxMessage> written = write(5, 4);
    publisher.brokerDown(true);
    start(options());

    // The retry budget is 3 attempts 10 ms apart; the outage lasts a hundred times longer.
    await().atMost(WAIT).until(() -> publisher.calls().size() >= 5);
    Thread.sleep(1_000);

    assertThat(outbox.deadLetters().count(DeadLetterQuery.all())).isZero();
    assertThat(store.stats().deadLetters()).isZero();
    assertThat(store.count(Status.PUBLISHED)).isZero();
    for (int a = 0; a < 5; a++) {
      assertThat(store.head("Order", "o-" + a).orElseThrow().attempts())
          .as("attempts of o-%d", a)
          .isZero();
    }
    List<List<OutboxMessage>> calls = publisher.calls();
    assertThat(calls.subList(1, calls.size()))
        .as("while the broker is down, one message per probe")
        .allSatisfy(call -> assertThat(call).hasSize(1));
    assertThat(calls.size())
        .as("about one probe per %s in about 1.2 s", PROBE)
        .isLessThanOrEqualTo(20);

    publisher.brokerDown(false);
    await().atMost(Duration.ofSeconds(2)).until(() -> store.count(Status.PUBLISHED) == 20);
    assertInOrderPerAggregate(written, publisher.acknowledged());
    assertThat(publisher.overlaps()).isEmpty();
  }

  @Test
  void aMessageThatFailsForItsOwnFaultIsStillDeadLetteredAfterMaxAttempts() {
    List<OutboxMessage> written = write(3, 2);
    OutboxMessage poison = written.get(0);
    publisher.forMessage(
        poison.id(), RETRYABLE_FAILURE, RETRYABLE_FAILURE, RETRYABLE_FAILURE, RETRYABLE_FAILURE);
    start(options());

    await().atMost(WAIT).until(() -> store.stats().deadLetters() == 1);
    await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == 5);
    assertThat(store.deadLetter(poison.id()).orElseThrow().message().attempts()).isEqualTo(3);
    assertThat(outbox.health().brokerUnavailableSince())
        .as("a message refused now and then is no outage")
        .isNull();
  }

  @Test
  void healthNamesTheOutageAndTurnsUnhealthyOnlyAfterTheTolerance() {
    write(2, 1);
    publisher.brokerDown(true);
    start(options().brokerOutageTolerance(Duration.ofMillis(300)));

    await().atMost(WAIT).until(() -> outbox.health().brokerUnavailableSince() != null);
    OutboxHealth early = outbox.health();
    assertThat(early.brokerUnavailableReason())
        .as("the adapter's words, without a message id")
        .isEqualTo("connection refused");
    await().atMost(WAIT).until(() -> !outbox.health().isHealthy());
    assertThat(outbox.health().isBrokerOutageTooLong()).isTrue();
    assertThat(outbox.health().brokerOutage()).isGreaterThanOrEqualTo(Duration.ofMillis(300));

    publisher.brokerDown(false);
    await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == 2);
    OutboxHealth after = outbox.health();
    assertThat(after.brokerUnavailableSince()).isNull();
    assertThat(after.brokerUnavailableReason()).isNull();
    assertThat(after.isHealthy()).isTrue();
  }

  @Test
  void outcomesTheDatabaseCouldNotRecordAreKeptAndRecordedWhenItAnswers() throws Exception {
    List<OutboxMessage> written = write(10, 1);
    publisher.forNextCalls(BLOCK_UNTIL_RELEASED);
    start(options());
    publisher.awaitBlocking();

    flaky.down(true);
    publisher.release(); // acknowledged while the database is away: the record fails
    await().atMost(WAIT).until(() -> publisher.acknowledged().size() == 10);
    Thread.sleep(500); // many processor cycles without a database
    flaky.down(false);

    await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == 10);
    assertThat(publisher.calls()).as("published once, never again").hasSize(1);
    Set<UUID> acknowledged = new HashSet<>();
    publisher.acknowledged().forEach(m -> acknowledged.add(m.id()));
    assertThat(acknowledged).hasSize(written.size());
  }

  @Test
  void anOutageIsNoLongerReportedOnceNothingIsLeftToSend() {
    write(1, 1);
    publisher.brokerDown(true);
    start(options());
    await().atMost(WAIT).until(() -> outbox.health().brokerUnavailableSince() != null);

    // Another instance, whose broker answers, delivers what waited.
    ScriptedPublisher elsewhere = new ScriptedPublisher();
    try (Outbox other =
        Outbox.create(
            options().instanceId("outage-test-2").build(), flaky, elsewhere, Clock.systemUTC())) {
      other.start();
      await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == 1);
    }

    await().atMost(WAIT).until(() -> outbox.health().brokerUnavailableSince() == null);
    assertThat(outbox.health().isHealthy()).isTrue();
  }

  @Test
  void aDatabaseOutageCountsNoAttemptAndSendsNothingTwice() throws Exception {
    List<OutboxMessage> written = write(5, 2);
    flaky.down(true);
    start(options());
    Thread.sleep(500); // many processor cycles, each failing at the database

    assertThat(publisher.calls()).as("nothing claimed, nothing sent").isEmpty();
    flaky.down(false);
    await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == written.size());
    for (int a = 0; a < 5; a++) {
      assertThat(store.head("Order", "o-" + a).orElseThrow().attempts()).isZero();
    }
    assertThat(publisher.acknowledged()).hasSize(written.size());
    assertInOrderPerAggregate(written, publisher.acknowledged());
  }

  private static void assertInOrderPerAggregate(
      List<OutboxMessage> written, List<OutboxMessage> acknowledged) {
    Map<String, List<Long>> expected = new LinkedHashMap<>();
    written.forEach(
        m -> expected.computeIfAbsent(m.aggregateId(), k -> new ArrayList<>()).add(m.seq()));
    Map<String, List<Long>> actual = new LinkedHashMap<>();
    acknowledged.forEach(
        m -> actual.computeIfAbsent(m.aggregateId(), k -> new ArrayList<>()).add(m.seq()));
    assertThat(actual).isEqualTo(expected);
  }
}
