package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.spi.LeasedHead;
import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The processor's pipeline: the next batch is claimed while one is published, and a batch's
 * outcomes are recorded in the transaction that claims the one after.
 */
class PipelineTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(4);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private Outbox engine;

  @AfterEach
  void close() {
    publisher.release();
    if (engine != null) {
      engine.close();
    }
  }

  private Outbox engine(int batchSize, Duration lease, Duration pollInterval) {
    engine =
        Outbox.create(
            OutboxOptions.builder()
                .instanceId("test-1")
                .batchSize(batchSize)
                .publishTimeout(PUBLISH_TIMEOUT)
                .leaseDuration(lease)
                .pollInterval(pollInterval)
                .build(),
            flaky,
            publisher,
            clock);
    return engine;
  }

  /** Adds {@code perAggregate} messages to each aggregate, interleaved in write order. */
  private List<OutboxMessage> backlog(int aggregates, int perAggregate) {
    List<OutboxMessage> messages = new ArrayList<>();
    for (int sequence = 0; sequence < perAggregate; sequence++) {
      for (int aggregate = 0; aggregate < aggregates; aggregate++) {
        messages.add(store.add("Order", "order-" + aggregate, "order.step" + sequence));
      }
    }
    return messages;
  }

  private static Set<String> aggregates(List<OutboxMessage> batch) {
    return batch.stream().map(OutboxMessage::aggregateId).collect(Collectors.toSet());
  }

  private static Map<String, List<Long>> seqsPerAggregate(List<OutboxMessage> messages) {
    Map<String, List<Long>> seqs = new LinkedHashMap<>();
    for (OutboxMessage message : messages) {
      seqs.computeIfAbsent(message.aggregateId(), k -> new ArrayList<>()).add(message.seq());
    }
    return seqs;
  }

  private void assertPublishedInOrderOnce(List<OutboxMessage> backlog) {
    assertThat(publisher.acknowledged()).hasSize(backlog.size());
    assertThat(seqsPerAggregate(publisher.acknowledged())).isEqualTo(seqsPerAggregate(backlog));
    assertThat(publisher.overlaps()).as("messages in flight twice at once").isEmpty();
  }

  /** Starts the engine with its first publish call blocked, and waits until it claimed ahead. */
  private void startBlockedWithABatchClaimedAhead(int batchSize, Duration pollInterval)
      throws InterruptedException {
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    engine(batchSize, Duration.ofSeconds(10), pollInterval).start();
    publisher.awaitBlocking();
    await().atMost(Duration.ofSeconds(5)).until(() -> flaky.claims().size() >= 2);
  }

  private void awaitPublished(long count) {
    await().atMost(Duration.ofSeconds(5)).until(() -> store.count(Status.PUBLISHED) == count);
  }

  @Test
  void claimsTheNextBatchWhileOneIsPublishedAndNeverTakesItsAggregates() throws Exception {
    List<OutboxMessage> backlog = backlog(6, 2);
    startBlockedWithABatchClaimedAhead(3, Duration.ofHours(1));
    List<OutboxMessage> first = flaky.claims().get(0);
    List<OutboxMessage> ahead = flaky.claims().get(1);
    assertThat(publisher.calls()).as("claimed while the first call was blocked").hasSize(1);
    assertThat(ahead).isNotEmpty();
    assertThat(aggregates(ahead)).doesNotContainAnyElementsOf(aggregates(first));

    publisher.release();
    awaitPublished(backlog.size());
    assertPublishedInOrderOnce(backlog);
  }

  @Test
  void eachBatchIsRecordedInTheTransactionThatClaimsTheNext() {
    List<OutboxMessage> backlog = backlog(30, 1);
    engine(5, Duration.ofSeconds(10), Duration.ofHours(1)).start();

    awaitPublished(backlog.size());
    // 6 batches: a claim, one ahead, then a record-and-claim per batch; the last ones may record
    // alone.
    FlakyStore.Transaction first = flaky.transactions().get(0);
    assertThat(first.outcomes()).as("the first transaction only claims").isZero();
    assertThat(first.newHeads()).isTrue();
    assertThat(flaky.transactions())
        .filteredOn(t -> t.outcomes() > 0 && t.newHeads())
        .as("records that claim in the same transaction")
        .hasSizeGreaterThan(3);
    assertThat(flaky.transactions()).hasSizeLessThanOrEqualTo(6 + 2);
    assertPublishedInOrderOnce(backlog);
  }

  @Test
  void stoppingRecordsWhatWasPublishedAndReleasesWhatWasClaimedAhead() throws Exception {
    backlog(6, 2);
    startBlockedWithABatchClaimedAhead(3, Duration.ofHours(1));
    List<OutboxMessage> first = flaky.claims().get(0);
    List<OutboxMessage> ahead = flaky.claims().get(1);

    CompletableFuture<Void> closing = CompletableFuture.runAsync(engine::close);
    await().atMost(Duration.ofSeconds(5)).until(() -> !engine.isRunning());
    publisher.release();
    closing.get();

    assertThat(first)
        .allSatisfy(
            m -> assertThat(store.row(m.id()).orElseThrow().status()).isEqualTo(Status.PUBLISHED));
    assertThat(ahead)
        .isNotEmpty()
        .allSatisfy(
            m -> {
              InMemoryOutboxStore.Row row = store.row(m.id()).orElseThrow();
              assertThat(row.status()).isEqualTo(Status.PENDING);
              assertThat(row.claimedBy()).as("lease left behind").isNull();
              assertThat(row.nextAttemptAt()).as("claimable at once").isEqualTo(T0);
            });
    assertThat(publisher.calls()).hasSize(1);
  }

  @Test
  void outcomesTheStoreFailedToRecordAreRecordedWithTheNextStep() throws Exception {
    List<OutboxMessage> backlog = backlog(10, 1);
    startBlockedWithABatchClaimedAhead(2, Duration.ofMillis(50));

    flaky.failNextClaims(2);
    publisher.release();

    awaitPublished(backlog.size());
    assertThat(flaky.transactions())
        .filteredOn(t -> t.method().equals("recordAndClaim") && t.failed())
        .hasSize(2);
    assertThat(flaky.methods()).filteredOn("recordAndClaim"::equals).hasSizeGreaterThan(2);
    assertPublishedInOrderOnce(backlog);
  }

  @Test
  void aLeaseShorterThanTwoPublishTimeoutsClaimsNothingAhead() throws Exception {
    List<OutboxMessage> backlog = backlog(6, 2);
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    engine(3, PUBLISH_TIMEOUT.plusSeconds(1), Duration.ofHours(1)).start();

    publisher.awaitBlocking();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> flaky.transactions().size() == 1);

    publisher.release();
    awaitPublished(backlog.size());
    assertPublishedInOrderOnce(backlog);
  }

  @Test
  void aClaimThatRanWhileABatchWasInFlightLooksAgainOnceThatBatchIsRecorded() throws Exception {
    OutboxMessage first = store.add("Order", "a", "order.placed");
    OutboxMessage elsewhere = store.add("Order", "b", "order.placed");
    store.leaseHead("Order", "b", "test-2", T0.plusSeconds(10));
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    engine(10, Duration.ofSeconds(10), Duration.ofHours(1)).start();
    publisher.awaitBlocking();
    // The claim ahead runs while "a" is in flight and finds nothing: "b" is test-2's.
    await().atMost(Duration.ofSeconds(5)).until(() -> flaky.claims().size() == 2);
    assertThat(flaky.claims().get(1)).isEmpty();

    clock.advance(Duration.ofSeconds(10)); // test-2's lease runs out on the store's clock
    publisher.release();

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.row(elsewhere.id()).orElseThrow().status() == Status.PUBLISHED);
    assertThat(publisher.acknowledged()).containsExactly(first, elsewhere);
  }

  @Test
  void aPublishInterruptedByCloseIsRecordedEvenWhereInterruptedThreadsGetNoConnection()
      throws Exception {
    OutboxMessage message = store.add("Order", "a", "order.placed");
    flaky.refuseInterruptedThreads();
    publisher.forNextCalls(ScriptedPublisher.Call.HANG);
    engine =
        Outbox.create(
            OutboxOptions.builder()
                .instanceId("test-1")
                .publishTimeout(PUBLISH_TIMEOUT)
                .leaseDuration(Duration.ofSeconds(10))
                .shutdownTimeout(Duration.ofMillis(100))
                .build(),
            flaky,
            publisher,
            clock);
    engine.start();
    publisher.awaitBlocking();

    engine.close();

    InMemoryOutboxStore.Row row = store.row(message.id()).orElseThrow();
    assertThat(row.lastError()).as("the interrupted attempt was recorded").contains("interrupted");
    assertThat(row.message().attempts()).as("an interrupt is not the message's fault").isZero();
    assertThat(row.claimedBy()).isNull();
  }

  @Test
  void anOutcomeTheStoreRefusesForGoodIsDroppedAndTheRestGoOn() {
    List<OutboxMessage> backlog = backlog(6, 1);
    OutboxMessage refused = backlog.get(0);
    flaky.refuseOutcomesOf(refused.aggregateType(), refused.aggregateId());
    engine(2, Duration.ofSeconds(10), Duration.ofMillis(50)).start();

    awaitPublished(backlog.size() - 1);
    InMemoryOutboxStore.Row row = store.row(refused.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(Status.PENDING);
    assertThat(row.claimedBy()).as("left to its lease").isEqualTo("test-1");
    assertThat(publisher.acknowledged()).containsExactlyInAnyOrderElementsOf(backlog);
  }

  @Test
  void messagesHandedOverAtCommitGoWithTheNextClaimedBatchNotAfterTheBacklog() throws Exception {
    List<OutboxMessage> backlog = backlog(40, 1);
    publisher.forNextCalls(ScriptedPublisher.Call.BLOCK_UNTIL_RELEASED);
    engine(2, Duration.ofSeconds(10), Duration.ofHours(1)).start();
    publisher.awaitBlocking();
    OutboxMessage handedOver = store.add("Order", "z", "order.placed");
    LeasedHead head = store.leaseHead("Order", "z", "test-1", T0.plusSeconds(10));
    store.handOver(List.of(head), T0.plusSeconds(10));

    publisher.release();

    awaitPublished(backlog.size() + 1);
    assertThat(publisher.acknowledged().indexOf(handedOver))
        .as("published with the second call, not behind 20 claimed batches")
        .isLessThan(6);
  }
}
