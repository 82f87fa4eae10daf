package dev.outbox;

import static dev.outbox.testing.ScriptedPublisher.Result.RETRYABLE_FAILURE;
import static org.assertj.core.api.Assertions.assertThat;

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
 * A batch may hold several messages of one aggregate; they go out in rounds, one per aggregate per
 * round, and an aggregate stops at its first failure.
 */
class RoundsTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final Outbox outbox =
      Outbox.create(
          OutboxOptions.builder()
              .instanceId("test-1")
              .retryPolicy(RetryPolicy.fixed(Duration.ofSeconds(1)))
              .build(),
          store,
          publisher,
          clock);

  @AfterEach
  void close() {
    outbox.close();
  }

  @Test
  void backlogOfOneAggregateIsClaimedAsOneBatchAndPublishedInOrderOneRoundEach() {
    OutboxMessage a1 = store.add("Order", "a", "e");
    OutboxMessage a2 = store.add("Order", "a", "e");
    OutboxMessage b1 = store.add("Order", "b", "e");
    OutboxMessage a3 = store.add("Order", "a", "e");

    assertThat(outbox.runOnce()).isEqualTo(4);

    assertThat(publisher.calls()).containsExactly(List.of(a1, b1), List.of(a2), List.of(a3));
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(4);
  }

  @Test
  void aggregateStopsAtItsFirstFailureWhileTheOthersGoOn() {
    OutboxMessage a1 = store.add("Order", "a", "e");
    OutboxMessage a2 = store.add("Order", "a", "e");
    OutboxMessage b1 = store.add("Order", "b", "e");
    OutboxMessage b2 = store.add("Order", "b", "e");
    publisher.forMessage(a1.id(), RETRYABLE_FAILURE);

    outbox.runOnce();

    assertThat(publisher.calls()).containsExactly(List.of(a1, b1), List.of(b2));
    assertThat(store.row(a1.id()).orElseThrow().message().attempts()).isEqualTo(1);
    InMemoryOutboxStore.Row held = store.row(a2.id()).orElseThrow();
    assertThat(held.status()).isEqualTo(Status.PENDING);
    assertThat(held.message().attempts()).as("a held-back message counts no attempt").isZero();
    assertThat(held.claimedBy()).as("and its lease is released").isNull();

    clock.advance(Duration.ofSeconds(1));
    outbox.runOnce();
    assertThat(publisher.calls().get(2)).extracting(OutboxMessage::id).containsExactly(a1.id());
    assertThat(publisher.calls().get(3)).extracting(OutboxMessage::id).containsExactly(a2.id());
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(4);
  }

  @Test
  void anAggregateWhoseHeadAnotherInstanceHoldsIsClaimedOnlyOnceTheLeaseRunsOut() {
    store.add("Order", "a", "e");
    store.add("Order", "a", "e");
    store.leaseHead("Order", "a", "someone-else", T0.plusSeconds(30));

    assertThat(outbox.runOnce()).isZero();
    clock.advance(Duration.ofSeconds(30));
    assertThat(outbox.runOnce()).isEqualTo(2);
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(2);
  }
}
