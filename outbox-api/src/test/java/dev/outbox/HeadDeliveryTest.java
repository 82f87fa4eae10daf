package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.ScriptedPublisher.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Version 2 of the delivery core, end to end through the engine: a processor holds heads, not
 * messages; a head stays with its holder while it has messages, a stale holder changes nothing, and
 * whatever a processor holds when it stops is given back at once.
 */
class HeadDeliveryTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration AWAIT = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final List<Outbox> outboxes = new ArrayList<>();

  @AfterEach
  void close() {
    publisher.release();
    outboxes.forEach(Outbox::close);
  }

  private static OutboxOptions.Builder options(String instanceId) {
    return OutboxOptions.builder()
        .instanceId(instanceId)
        .publishTimeout(PUBLISH_TIMEOUT)
        .leaseDuration(LEASE)
        .retryPolicy(RetryPolicy.fixed(Duration.ofSeconds(1)))
        .pollInterval(Duration.ofHours(1));
  }

  private Outbox engine(OutboxOptions.Builder options, ScriptedPublisher publisher) {
    Outbox engine = Outbox.create(options.build(), flaky, publisher, clock);
    outboxes.add(engine);
    return engine;
  }

  private List<OutboxMessage> add(String aggregateId, int count) {
    List<OutboxMessage> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      messages.add(store.add("Order", aggregateId, "order.step" + i));
    }
    return messages;
  }

  private List<OutboxMessage> acknowledgedOf(String aggregateId) {
    return publisher.acknowledged().stream()
        .filter(message -> message.aggregateId().equals(aggregateId))
        .toList();
  }

  private static List<Long> seqs(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::seq).toList();
  }

  private long claimsOfNewHeads() {
    return flaky.transactions().stream().filter(FlakyStore.Transaction::newHeads).count();
  }

  @Test
  void aHeadWithMoreMessagesIsContinuedByItsRecordWithoutAnyClaimAndPublishedInSeqOrder() {
    OutboxMessage first = store.add("Order", "a", "order.placed");
    LeasedHead handedOver = store.leaseHead("Order", "a", "test-1", T0.plus(LEASE));
    // Written by later commits while test-1 holds the head: they wait for its record.
    List<OutboxMessage> behind = add("a", 5);
    Outbox engine = engine(options("test-1").batchSize(2), publisher);
    engine.start();
    await().atMost(AWAIT).until(() -> flaky.transactions().size() == 1);
    assertThat(flaky.claims().get(0)).as("the first claim finds the head leased").isEmpty();

    store.handOver(List.of(handedOver), T0.plus(LEASE));

    await().atMost(AWAIT).until(() -> store.count(Status.PUBLISHED) == 6);
    assertThat(claimsOfNewHeads()).as("claims of new heads after the first").isEqualTo(1);
    assertThat(flaky.grants())
        .as("every batch after the handed-over one came back from a record, under its token")
        .hasSize(3)
        .allSatisfy(lease -> assertThat(lease).isEqualTo(handedOver.lease()));
    assertThat(publisher.calls()).allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(2));
    assertThat(seqs(publisher.acknowledged())).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(publisher.acknowledged().get(0)).isEqualTo(first);
    assertThat(publisher.acknowledged().subList(1, 6)).isEqualTo(behind);
    InMemoryOutboxStore.Head head = store.head("Order", "a").orElseThrow();
    assertThat(head.claimedBy()).as("released once nothing is left").isNull();
    assertThat(head.leaseToken()).isEqualTo(handedOver.lease().token());
  }

  @Test
  void aStaleHoldersOutcomeChangesNothingOnceTheHeadWasGrantedToAnotherInstance() throws Exception {
    OutboxMessage message = store.add("Order", "a", "order.placed");
    publisher
        .forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED)
        .forMessage(message.id(), Result.RETRYABLE_FAILURE);
    Outbox stale = engine(options("test-1"), publisher);
    CompletableFuture<Integer> running = CompletableFuture.supplyAsync(stale::runOnce);
    publisher.awaitBlocking();

    clock.advance(LEASE.plusSeconds(1)); // test-1's lease runs out on the store's clock
    List<LeasedHead> taken = store.claim(new ClaimRequest("test-2", 10, LEASE, true));
    assertThat(taken).as("the head is due again and granted to test-2").hasSize(1);
    InMemoryOutboxStore.Head granted = store.head("Order", "a").orElseThrow();

    publisher.release();
    assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo(1);

    assertThat(flaky.methods()).as("test-1 recorded its failure").endsWith("record");
    assertThat(store.head("Order", "a").orElseThrow())
        .as("test-1's retry (old token) neither counted an attempt nor released test-2's lease")
        .isEqualTo(granted);
    assertThat(granted.claimedBy()).isEqualTo("test-2");
    assertThat(granted.attempts()).isZero();
    assertThat(store.claim(new ClaimRequest("test-3", 10, LEASE, true)))
        .as("nobody else can take it while test-2 holds it")
        .isEmpty();

    store.record(List.of(new HeadOutcome.Delivered(taken.get(0).lease(), message.seq())));
    assertThat(store.row(message.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
  }

  @Test
  void closeReleasesEveryHeadItHoldsSoThatAnotherOutboxPublishesThemAtOnce() throws Exception {
    OutboxMessage inFlight = store.add("Order", "x", "order.placed");
    OutboxMessage claimedAhead = store.add("Order", "y", "order.placed");
    OutboxMessage b = store.add("Order", "b", "order.placed");
    OutboxMessage c = store.add("Order", "c", "order.placed");
    LeasedHead handedB = store.leaseHead("Order", "b", "test-1", T0.plus(LEASE));
    LeasedHead handedC = store.leaseHead("Order", "c", "test-1", T0.plus(LEASE));
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    Outbox engine = engine(options("test-1").batchSize(1), publisher);
    engine.start();
    publisher.awaitBlocking();
    await().atMost(AWAIT).until(() -> flaky.claims().size() == 2);
    assertThat(flaky.claims().get(1)).containsExactly(claimedAhead);
    store.handOver(List.of(handedB, handedC), T0.plus(LEASE));

    CompletableFuture<Void> closing = CompletableFuture.runAsync(engine::close);
    await().atMost(AWAIT).until(() -> !engine.isRunning());
    publisher.release();
    closing.get(10, TimeUnit.SECONDS);

    assertThat(publisher.calls()).as("nothing but the batch in flight was sent").hasSize(1);
    assertThat(store.row(inFlight.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED);
    for (String id : List.of("x", "y", "b", "c")) {
      assertThat(store.head("Order", id).orElseThrow().claimedBy()).as(id).isNull();
    }
    ScriptedPublisher next = new ScriptedPublisher();
    Outbox restarted = engine(options("test-2"), next);
    assertThat(restarted.runOnce()).as("claimed at once, no lease to wait for").isEqualTo(3);
    assertThat(next.acknowledged()).containsExactlyInAnyOrder(claimedAhead, b, c);
  }

  @Test
  void aHeldAggregatePublishesNothingAfterItsDeadLetterUntilTheReplayDeliversItInPlace() {
    List<OutboxMessage> held = add("a", 3);
    List<OutboxMessage> other = add("b", 3);
    publisher.forMessage(held.get(0).id(), Result.PERMANENT_FAILURE);
    Outbox outbox =
        engine(
            options("test-1")
                .batchSize(1)
                .holdAggregateOnDeadLetter(true)
                .pollInterval(Duration.ofMillis(20)),
            publisher);
    outbox.start();

    await()
        .atMost(AWAIT)
        .until(
            () ->
                store.deadLetter(held.get(0).id()).isPresent()
                    && acknowledgedOf("b").size() == other.size());
    long claims = claimsOfNewHeads();
    await().atMost(AWAIT).until(() -> claimsOfNewHeads() >= claims + 3);
    assertThat(acknowledgedOf("a")).as("nothing of a after its dead letter").isEmpty();
    InMemoryOutboxStore.Head head = store.head("Order", "a").orElseThrow();
    assertThat(head.held()).isTrue();
    assertThat(head.deliveredSeq()).as("the cursor waits at the dead letter").isZero();

    assertThat(outbox.deadLetters().replay(List.of(held.get(0).id()))).isEqualTo(1);

    await().atMost(AWAIT).until(() -> acknowledgedOf("a").size() == held.size());
    assertThat(acknowledgedOf("a"))
        .extracting(OutboxMessage::id)
        .containsExactlyElementsOf(held.stream().map(OutboxMessage::id).toList());
    assertThat(seqs(acknowledgedOf("a"))).as("delivered in place").containsExactly(1L, 2L, 3L);
    assertThat(store.head("Order", "a").orElseThrow().writeSeq()).isEqualTo(3);
    assertThat(store.deadLetter(held.get(0).id())).isEmpty();
  }

  @Test
  void aMessageAddedWhileItsHeadIsInFlightIsPublishedAfterTheInFlightOnesInOrder()
      throws Exception {
    List<OutboxMessage> inFlight = add("a", 2);
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    engine(options("test-1"), publisher).start();
    publisher.awaitBlocking();
    assertThat(publisher.calls().get(0)).containsExactly(inFlight.get(0));

    // Committed while the head is leased: no fast path, no wake-up, and the poll is an hour away.
    List<OutboxMessage> later = add("a", 2);
    publisher.release();

    await().atMost(AWAIT).until(() -> acknowledgedOf("a").size() == 4);
    List<OutboxMessage> expected = new ArrayList<>(inFlight);
    expected.addAll(later);
    assertThat(publisher.acknowledged()).containsExactlyElementsOf(expected);
    assertThat(publisher.overlaps()).isEmpty();
  }
}
