package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.internal.OutboxEngine;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fast path: messages a commit wrote leased to this instance are published from memory. */
class LeasedPublishTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final OutboxEngine engine =
      new OutboxEngine(
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

  private OutboxMessage leased(String aggregateId, Instant until) {
    OutboxMessage message = store.add("Order", aggregateId, "order.placed");
    store.lease(message.id(), "test-1", until);
    return message;
  }

  @Test
  void leasedMessagesArePublishedFromMemoryOnceEach() {
    OutboxMessage a = leased("a", T0.plus(LEASE));
    OutboxMessage b = leased("b", T0.plus(LEASE));
    engine.start();

    engine.publishLeased(List.of(a, b), T0.plus(LEASE));

    await().atMost(Duration.ofSeconds(5)).until(() -> store.count(Status.PUBLISHED) == 2);
    assertThat(publisher.calls()).containsExactly(List.of(a, b));
  }

  @Test
  void leasedMessageWhoseLeaseEndsBeforeAPublishCouldFinishIsLeftToTheClaim() {
    Instant soon = T0.plusMillis(500);
    OutboxMessage a = leased("a", soon);
    engine.start();

    engine.publishLeased(List.of(a), soon);
    engine.wakeUp();

    await().pollDelay(Duration.ofMillis(300)).until(() -> true);
    assertThat(publisher.calls()).isEmpty();
    clock.advance(Duration.ofSeconds(1));
    engine.wakeUp();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.row(a.id()).orElseThrow().status() == Status.PUBLISHED);
  }

  @Test
  void leasedMessagesHandedToAnOutboxThatDoesNotRunWaitForTheClaim() {
    OutboxMessage a = leased("a", T0.plus(LEASE));

    engine.publishLeased(List.of(a), T0.plus(LEASE));

    assertThat(engine.runOnce()).as("still leased").isZero();
    clock.advance(LEASE);
    assertThat(engine.runOnce()).isEqualTo(1);
    assertThat(publisher.acknowledged()).containsExactly(a);
  }
}
