package dev.outbox.internal;

import static dev.outbox.testing.ScriptedPublisher.Call.HANG;
import static dev.outbox.testing.ScriptedPublisher.Call.THROW;
import static dev.outbox.testing.ScriptedPublisher.Result.BROKER_DOWN;
import static dev.outbox.testing.ScriptedPublisher.Result.PERMANENT_FAILURE;
import static dev.outbox.testing.ScriptedPublisher.Result.RETRYABLE_FAILURE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.StandardErrorCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The processor on the in-memory store: a store or a broker that does not answer for a while is one
 * warning when it starts and one info line when it ends, whatever number of attempts failed in
 * between, and no other line of the outbox reaches warn; a message the broker refuses is no outage.
 */
class OutageLogTest {

  private static final String INSTANCE = "outage-log-test";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryOutboxStore store = new InMemoryOutboxStore(Clock.systemUTC());
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final RecordingLogger outageLog = new RecordingLogger();
  private final StandardErrorCapture standardError = new StandardErrorCapture();
  private OutboxEngine engine;

  @AfterEach
  void close() {
    publisher.release();
    if (engine != null) {
      engine.close();
    }
    standardError.close();
  }

  private void start() {
    start(OutboxOptions.builder());
  }

  private void start(OutboxOptions.Builder options) {
    start(options, publisher);
  }

  private void start(OutboxOptions.Builder options, EventPublisher publisher) {
    engine =
        new OutboxEngine(
            options
                .instanceId(INSTANCE)
                .pollInterval(Duration.ofMillis(20))
                .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(10)))
                .maxAttempts(100)
                .build(),
            true,
            flaky,
            publisher,
            Clock.systemUTC(),
            outageLog,
            Duration.ZERO);
    engine.start();
  }

  private void awaitPublished(long count) {
    await().atMost(WAIT).until(() -> store.count(Status.PUBLISHED) == count);
  }

  /** What the rest of the outbox wrote through the tests' logging (warn and above). */
  private List<String> otherWarnings() {
    return standardError.lines().stream()
        .filter(line -> line.contains(INSTANCE) || line.startsWith("\tat "))
        .filter(line -> !line.contains("] INFO "))
        .toList();
  }

  @Test
  void storeOutageOfFiveFailedCyclesIsOneWarningAndOneRecoveryLine() {
    store.add("Order", "o-1", "order.placed");
    store.add("Order", "o-2", "order.placed");
    flaky.failNextClaims(5);

    start();
    awaitPublished(2);
    await().atMost(WAIT).until(() -> !outageLog.at(Level.INFO).isEmpty());

    assertThat(outageLog.at(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .isEqualTo(
                        "Outbox outage-log-test: store (database) unreachable while recording and"
                            + " claiming: java.lang.IllegalStateException: database unreachable"
                            + " (scripted); the processor retries every 20 ms (stack traces at"
                            + " DEBUG)"));
    assertThat(outageLog.at(Level.INFO))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .matches(
                        "Outbox outage-log-test: store \\(database\\) reachable again after"
                            + " [0-9.]+ (ms|s); 5 attempts failed"));
    assertThat(outageLog.at(Level.DEBUG))
        .as("every failed attempt's stack trace, at debug")
        .hasSize(5)
        .allSatisfy(line -> assertThat(line.error()).isNotNull());
    assertThat(otherWarnings()).isEmpty();
    assertThat(publisher.acknowledged()).hasSize(2);
  }

  @Test
  void brokerThatThrowsForFourBatchesIsOneWarningAndOneRecoveryLine() {
    store.add("Order", "o-1", "order.placed");
    store.add("Order", "o-2", "order.placed");
    publisher.forNextCalls(THROW, THROW, THROW, THROW);

    start();
    awaitPublished(2);
    await().atMost(WAIT).until(() -> !outageLog.at(Level.INFO).isEmpty());

    assertThat(outageLog.at(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .startsWith(
                        "Outbox outage-log-test: broker not accepting messages while publishing 2 messages")
                    .contains(
                        ": publisher threw java.lang.IllegalStateException: scripted publisher blew"
                            + " up;")
                    .endsWith(
                        "the messages stay in the outbox and count no attempt; one is tried every"
                            + " 500 ms until the broker takes it (stack traces at DEBUG)"));
    assertThat(outageLog.at(Level.INFO))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .matches(
                        "Outbox outage-log-test: broker accepting messages again after [0-9.]+ (ms|s); 4"
                            + " attempts failed"));
    assertThat(otherWarnings()).isEmpty();
    assertThat(publisher.calls()).hasSizeGreaterThanOrEqualTo(5);
  }

  @Test
  void brokerIsNamedAsItsAdapterNamesIt() {
    store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(THROW);
    EventPublisher kafka =
        new EventPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
            return publisher.publish(messages, timeout);
          }

          @Override
          public String messagingSystem() {
            return "kafka";
          }
        };

    start(OutboxOptions.builder(), kafka);
    awaitPublished(1);
    await().atMost(WAIT).until(() -> !outageLog.at(Level.INFO).isEmpty());

    assertThat(outageLog.at(Level.WARN).get(0).message())
        .startsWith("Outbox outage-log-test: broker (kafka) not accepting messages while");
    assertThat(outageLog.at(Level.INFO).get(0).message())
        .startsWith("Outbox outage-log-test: broker (kafka) accepting messages again after");
  }

  @Test
  void brokerThatFailsEveryMessageAsItsOwnFaultIsAnOutage() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    OutboxMessage b = store.add("Order", "o-2", "order.placed");
    publisher.forMessage(a.id(), BROKER_DOWN, BROKER_DOWN, BROKER_DOWN);
    publisher.forMessage(b.id(), BROKER_DOWN, BROKER_DOWN, BROKER_DOWN);

    start();
    awaitPublished(2);
    await().atMost(WAIT).until(() -> !outageLog.at(Level.INFO).isEmpty());

    assertThat(outageLog.at(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .contains("broker not accepting messages while publishing"));
    assertThat(outageLog.at(Level.INFO))
        .singleElement()
        .satisfies(
            line -> assertThat(line.message()).contains("broker accepting messages again after"));
    assertThat(otherWarnings()).isEmpty();
  }

  @Test
  void brokerThatDoesNotAnswerIsAnOutageNamingThePublishTimeout() {
    store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(HANG);

    start(
        OutboxOptions.builder()
            .publishTimeout(Duration.ofMillis(300))
            .leaseDuration(Duration.ofSeconds(1)));
    awaitPublished(1);
    await().atMost(WAIT).until(() -> !outageLog.at(Level.INFO).isEmpty());

    assertThat(outageLog.at(Level.WARN))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line.message())
                    .contains(
                        "broker not accepting messages while publishing 1 message: no answer within"
                            + " the publish timeout of 300 ms;"));
    assertThat(outageLog.at(Level.INFO))
        .singleElement()
        .satisfies(line -> assertThat(line.message()).endsWith("; 1 attempt failed"));
    assertThat(otherWarnings())
        .as("the head given up at the hard cap is part of the outage")
        .isEmpty();
  }

  @Test
  void messagesTheBrokerRefusesAreNoOutageAndKeepTheirFailureLines() {
    OutboxMessage refused = store.add("Order", "o-1", "order.placed");
    OutboxMessage retried = store.add("Order", "o-2", "order.placed");
    store.add("Order", "o-3", "order.placed");
    publisher.forMessage(refused.id(), PERMANENT_FAILURE);
    publisher.forMessage(retried.id(), RETRYABLE_FAILURE);

    start();
    awaitPublished(2);
    await().atMost(WAIT).until(() -> store.stats().deadLetters() == 1);

    assertThat(outageLog.lines()).as("the broker answered").isEmpty();
    assertThat(standardError.lines())
        .anySatisfy(line -> assertThat(line).contains("WARN").contains("1 published; first error"));
  }
}
