package dev.outbox;

import static dev.outbox.testing.ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED;
import static dev.outbox.testing.ScriptedPublisher.Call.HANG;
import static dev.outbox.testing.ScriptedPublisher.Call.MISSING_RESULT;
import static dev.outbox.testing.ScriptedPublisher.Call.THROW;
import static dev.outbox.testing.ScriptedPublisher.Call.UNKNOWN_IDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Row;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A publisher that misbehaves never stops the processor and never loses or doubles a message. */
class PublisherFailureTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final Duration LEASE = Duration.ofSeconds(5);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private Outbox outbox = outbox(options());

  private static OutboxOptions.Builder options() {
    return OutboxOptions.builder()
        .instanceId("test-1")
        .retryPolicy(RetryPolicy.fixed(RETRY))
        .publishTimeout(Duration.ofSeconds(2))
        .leaseDuration(LEASE)
        .pollInterval(Duration.ofMillis(20));
  }

  private Outbox outbox(OutboxOptions.Builder builder) {
    return Outbox.create(builder.build(), flaky, publisher, clock);
  }

  @AfterEach
  void close() {
    publisher.release();
    outbox.close();
  }

  @Test
  void publisherThatThrowsFailsTheWholeBatchAsTheBrokersFaultCountingNoAttempt() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    OutboxMessage b = store.add("Order", "o-2", "order.placed");
    publisher.forNextCalls(THROW);

    assertThat(outbox.runOnce()).isEqualTo(2);

    for (OutboxMessage message : new OutboxMessage[] {a, b}) {
      Row row = store.row(message.id()).orElseThrow();
      assertThat(row.status()).isEqualTo(Status.PENDING);
      assertThat(row.message().attempts()).isZero();
      assertThat(row.nextAttemptAt()).as("due again at once").isEqualTo(T0);
      assertThat(row.lastError()).contains("scripted publisher blew up");
    }
    assertThat(outbox.health().brokerUnavailableReason()).contains("scripted publisher blew up");
    assertThat(outbox.runOnce()).isEqualTo(2);
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(2);
  }

  @Test
  void messageWithoutAResultIsARetryableFailureAndTheOthersArePublished() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    OutboxMessage b = store.add("Order", "o-2", "order.placed");
    publisher.forNextCalls(MISSING_RESULT);

    outbox.runOnce();

    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    Row missing = store.row(b.id()).orElseThrow();
    assertThat(missing.status()).isEqualTo(Status.PENDING);
    assertThat(missing.message().attempts()).isEqualTo(1);
    assertThat(missing.lastError()).contains("no result for this message");
  }

  @Test
  void resultsForUnknownIdsDoNotCountAsPublished() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(UNKNOWN_IDS);

    outbox.runOnce();

    Row row = store.row(a.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(Status.PENDING);
    assertThat(row.message().attempts()).isEqualTo(1);
  }

  @Test
  void aCallPastThePublishTimeoutKeepsItsHeadLeasedAndNothingIsSentAgainUntilItReturns() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(BLOCK_UNTIL_RELEASED);
    outbox.close();
    // A cap (twice the timeout) far beyond what the test waits before it releases the call.
    outbox = outbox(options().publishTimeout(Duration.ofSeconds(3)));

    assertThat(outbox.runOnce()).as("claimed, then in doubt").isEqualTo(1);
    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PENDING);

    // The lease runs out on the store's clock unless it is renewed, as it is while in doubt.
    clock.advance(LEASE.minusSeconds(1));
    Instant renewedPast = clock.instant().plus(LEASE).minusSeconds(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> store.head("Order", "o-1").orElseThrow().availableAt().isAfter(renewedPast));
    clock.advance(Duration.ofSeconds(2));
    Outbox other = outbox(options().instanceId("test-2"));
    try {
      assertThat(other.runOnce()).as("still leased to the call in doubt").isZero();

      publisher.release();
      await().atMost(Duration.ofSeconds(5)).until(() -> outbox.runOnce() > 0);
    } finally {
      other.close();
    }
    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    assertThat(publisher.calls()).as("sent once").hasSize(1);
    assertThat(publisher.overlaps()).isEmpty();
  }

  @Test
  void aCallStillRunningAtTheHardCapIsInterruptedAndItsMessagesWaitALeaseBeforeTheRetry() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(HANG);
    outbox.close();
    outbox = outbox(options().publishTimeout(Duration.ofMillis(300)));

    assertThat(outbox.runOnce()).isEqualTo(1);
    // At twice the publish timeout the call is interrupted and its messages fail.
    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.interruptedCalls() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> outbox.runOnce() > 0);

    Row row = store.row(a.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(Status.PENDING);
    assertThat(row.message().attempts()).as("a stuck client is not the message's fault").isZero();
    assertThat(row.lastError()).contains("hard cap");
    assertThat(row.nextAttemptAt())
        .as("not due again before a lease: the interrupted send may still land")
        .isEqualTo(T0.plus(LEASE));
    await().atMost(Duration.ofSeconds(5)).until(publisher::idle);
    clock.advance(LEASE);
    assertThat(outbox.runOnce()).isEqualTo(1);
    assertThat(publisher.overlaps()).isEmpty();
    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
  }

  @Test
  void sendsWithoutAFinalOutcomeAtTheHardCapRecreateTheClientOnceAndWaitALease() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    OutboxMessage b = store.add("Order", "o-2", "order.placed");
    AtomicInteger recreated = new AtomicInteger();
    List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
    EventPublisher stuckClient =
        new EventPublisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
            sent.addAll(messages);
            return messages.stream()
                .map(
                    m ->
                        recreated.get() == 0
                            ? PublishResult.uncertain(
                                m.id(), "test-topic", timeout, new CompletableFuture<>())
                            : PublishResult.published(m.id()))
                .toList();
          }

          @Override
          public void recreateClient() {
            recreated.incrementAndGet();
          }
        };
    outbox.close();
    outbox =
        Outbox.create(
            options().publishTimeout(Duration.ofMillis(300)).build(), flaky, stuckClient, clock);

    outbox.runOnce();
    // Both heads of the batch reach the cap of twice the publish timeout: one client, one renewal.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              outbox.runOnce();
              return List.of(a, b).stream()
                  .allMatch(m -> store.row(m.id()).orElseThrow().lastError() != null);
            });

    await().atMost(Duration.ofSeconds(5)).until(() -> recreated.get() > 0);
    assertThat(recreated).as("the client recreated once for the batch").hasValue(1);
    for (OutboxMessage message : List.of(a, b)) {
      Row row = store.row(message.id()).orElseThrow();
      assertThat(row.lastError()).contains("hard cap");
      assertThat(row.nextAttemptAt()).as("not again before a lease").isEqualTo(T0.plus(LEASE));
    }
    assertThat(sent).as("nothing sent again meanwhile").hasSize(2);
    clock.advance(LEASE);
    assertThat(outbox.runOnce()).isEqualTo(2);
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(2);
  }

  @Test
  void anUncertainResultIsDecidedByItsFinalOutcomeAndTheAggregateWaitsForIt() {
    OutboxMessage a1 = store.add("Order", "o-1", "order.placed");
    OutboxMessage a2 = store.add("Order", "o-1", "order.paid");
    OutboxMessage b = store.add("Order", "o-2", "order.placed");
    CompletableFuture<PublishResult> late = new CompletableFuture<>();
    List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
    EventPublisher uncertainOnce =
        (messages, timeout) -> {
          sent.addAll(messages);
          return messages.stream()
              .map(
                  m ->
                      m.id().equals(a1.id()) && !late.isDone()
                          ? PublishResult.uncertain(m.id(), "test-topic", timeout, late)
                          : PublishResult.published(m.id()))
              .toList();
        };
    outbox.close();
    outbox = Outbox.create(options().build(), flaky, uncertainOnce, clock);

    outbox.runOnce();

    assertThat(store.row(b.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    assertThat(store.row(a1.id()).orElseThrow().status())
        .as("nothing recorded while the send may still land")
        .isEqualTo(Status.PENDING);
    assertThat(sent).as("nothing of the aggregate after it was sent").doesNotContain(a2);
    assertThat(outbox.runOnce()).as("its head stays leased").isZero();

    late.complete(PublishResult.published(a1.id()));
    await().atMost(Duration.ofSeconds(5)).until(() -> outbox.runOnce() > 0);
    assertThat(store.row(a1.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    outbox.runOnce();
    assertThat(store.row(a2.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    assertThat(sent).containsExactly(a1, b, a2);
  }

  @Test
  void anUncertainResultThatEndsInAFailureIsRetried() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    CompletableFuture<PublishResult> late = new CompletableFuture<>();
    EventPublisher uncertainOnce =
        (messages, timeout) ->
            messages.stream()
                .map(
                    m ->
                        late.isDone()
                            ? PublishResult.published(m.id())
                            : PublishResult.uncertain(m.id(), "test-topic", timeout, late))
                .toList();
    outbox.close();
    outbox = Outbox.create(options().build(), flaky, uncertainOnce, clock);
    outbox.runOnce();

    late.complete(
        PublishResult.failed(
            a.id(), PublishException.retryable(a.id(), "test-topic", "delivery timed out", null)));
    await().atMost(Duration.ofSeconds(5)).until(() -> outbox.runOnce() > 0);

    Row row = store.row(a.id()).orElseThrow();
    assertThat(row.message().attempts()).isEqualTo(1);
    assertThat(row.lastError()).contains("delivery timed out");
    clock.advance(RETRY);
    assertThat(outbox.runOnce()).isEqualTo(1);
    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
  }

  @Test
  void processorSurvivesAStoreThatFailsAndDeliversOnceItAnswersAgain() {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    flaky.failNextClaims(3);

    outbox.start();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> store.row(a.id()).orElseThrow().status() == Status.PUBLISHED);
    assertThat(outbox.isRunning()).isTrue();
  }

  @Test
  void closeLetsTheBatchInFlightFinishAndRecordsIt() throws Exception {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(BLOCK_UNTIL_RELEASED);
    outbox =
        outbox(
            options().publishTimeout(Duration.ofSeconds(3)).shutdownTimeout(Duration.ofSeconds(5)));
    outbox.start();
    publisher.awaitBlocking();

    CompletableFuture<Void> closing = CompletableFuture.runAsync(outbox::close);
    await()
        .alias("close waits for the batch in flight")
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !closing.isDone());
    publisher.release();
    closing.get(5, TimeUnit.SECONDS);

    assertThat(store.row(a.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    assertThat(publisher.interruptedCalls()).isZero();
    assertThat(publisher.closeCount()).isEqualTo(1);
  }

  @Test
  void closeInterruptsABatchThatOutlastsTheShutdownTimeoutAndKeepsItsMessagesPending()
      throws Exception {
    OutboxMessage a = store.add("Order", "o-1", "order.placed");
    publisher.forNextCalls(HANG);
    outbox =
        outbox(
            options()
                .publishTimeout(Duration.ofSeconds(3))
                .shutdownTimeout(Duration.ofMillis(100)));
    outbox.start();
    publisher.awaitBlocking();

    outbox.close();

    await().atMost(Duration.ofSeconds(5)).until(() -> publisher.interruptedCalls() == 1);
    Row row = store.row(a.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(Status.PENDING);
    assertThat(row.message().attempts()).as("a shutdown is not the message's fault").isZero();
    assertThat(row.nextAttemptAt()).isEqualTo(T0.plus(LEASE));
    assertThat(publisher.closeCount()).isEqualTo(1);
  }
}
