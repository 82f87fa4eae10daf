package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.LeasedHead;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fast path: heads a commit wrote leased to this instance are published from memory, with the
 * messages the commit wrote behind them.
 */
class LeasedPublishTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final Outbox engine =
      Outbox.create(
          OutboxOptions.builder()
              .instanceId("test-1")
              .publishTimeout(Duration.ofSeconds(3))
              .leaseDuration(LEASE)
              .pollInterval(Duration.ofHours(1))
              .build(),
          store,
          publisher,
          clock);

  @AfterEach
  void close() {
    engine.close();
  }

  private LeasedHead leased(String aggregateId, Instant until) {
    store.add("Order", aggregateId, "order.placed");
    return store.leaseHead("Order", aggregateId, "test-1", until);
  }

  private static OutboxMessage only(LeasedHead head) {
    assertThat(head.messages()).hasSize(1);
    return head.messages().get(0);
  }

  @Test
  void leasedHeadsArePublishedFromMemoryOnceEach() {
    LeasedHead a = leased("a", T0.plus(LEASE));
    LeasedHead b = leased("b", T0.plus(LEASE));
    engine.start();

    store.handOver(List.of(a, b), T0.plus(LEASE));

    await().atMost(Duration.ofSeconds(5)).until(() -> store.count(Status.PUBLISHED) == 2);
    assertThat(publisher.calls()).containsExactly(List.of(only(a), only(b)));
    assertThat(store.head("Order", "a").orElseThrow().claimedBy()).isNull();
  }

  @Test
  void aHeadHandedOverWhoseLeaseEndsBeforeAPublishCouldFinishIsReleasedToTheClaimAtOnce() {
    Instant soon = T0.plusMillis(500);
    LeasedHead a = leased("a", soon);
    engine.start();

    store.handOver(List.of(a), soon);
    engine.wakeUp();

    // Version 2 releases it instead of leaving it to its lease: no need to wait for the lease.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.row(only(a).id()).orElseThrow().status() == Status.PUBLISHED);
    assertThat(publisher.calls()).hasSize(1);
    assertThat(store.head("Order", "a").orElseThrow().leaseToken())
        .as("granted again by the claim")
        .isEqualTo(2);
  }

  @Test
  void leasedHeadsHandedToAnOutboxThatStoppedMeanwhileAreReleasedForTheClaimAtOnce() {
    LeasedHead a = leased("a", T0.plus(LEASE));
    engine.start();
    CommitHandOver.LeaseReceiver receiver = store.leaseReceiver();
    engine.close();
    assertThat(store.leaseReceiver()).as("a closed outbox receives no leases").isNull();

    // A commit that read the receiver before the close hands over after it.
    receiver.sink().committed(List.of(a), T0.plus(LEASE));

    assertThat(store.head("Order", "a").orElseThrow().claimedBy())
        .as("released, not left leased until the lease runs out")
        .isNull();
  }

  @Test
  void onlyARunningOutboxReceivesLeasesAndTheFirstOneKeepsThem() {
    assertThat(store.leaseReceiver()).as("before start").isNull();
    engine.start();
    assertThat(store.leaseReceiver().instanceId()).isEqualTo("test-1");
    try (Outbox other =
        Outbox.create(
            OutboxOptions.builder().instanceId("test-2").pollInterval(Duration.ofHours(1)).build(),
            store,
            new ScriptedPublisher(),
            clock)) {
      other.start();
      assertThat(store.leaseReceiver().instanceId())
          .as("the first receiver kept")
          .isEqualTo("test-1");
    }
    assertThat(store.leaseReceiver().instanceId()).isEqualTo("test-1");
  }
}
