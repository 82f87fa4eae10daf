package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.ScriptedPublisher.Result;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cleanup deletes delivered messages (behind their head's cursor) written longer ago than the
 * retention, in bounded batches, then heads left with nothing; and nothing else.
 */
class CleanupTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore countingStore = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private Outbox outbox;

  private Outbox outbox(OutboxOptions.Builder options) {
    outbox = Outbox.create(options.instanceId("test-1").build(), countingStore, publisher, clock);
    return outbox;
  }

  @AfterEach
  void close() {
    if (outbox != null) {
      outbox.close();
    }
  }

  @Test
  void deliveredMessagesAreDeletedOnlyOnceWrittenLongerAgoThanTheRetention() {
    Outbox outbox = outbox(OutboxOptions.builder().retention(Duration.ofHours(1)));
    store.add("Order", "o-1", "order.placed");
    store.add("Order", "o-2", "order.placed");
    OutboxMessage failing = store.add("Order", "o-3", "order.placed");
    publisher.forMessage(failing.id(), Result.RETRYABLE_FAILURE);
    outbox.runOnce();

    clock.advance(Duration.ofMinutes(59));
    assertThat(outbox.cleanUpOnce()).isZero();
    clock.advance(Duration.ofMinutes(2));
    assertThat(outbox.cleanUpOnce()).isEqualTo(2);

    assertThat(store.count(Status.PUBLISHED)).isZero();
    assertThat(store.row(failing.id())).as("pending messages are never deleted").isPresent();
    assertThat(store.head("Order", "o-1")).as("an idle head with no message left").isEmpty();
    assertThat(store.head("Order", "o-3")).as("a head with a message waiting").isPresent();
  }

  @Test
  void aDeliveredMessageIsDeletedByWhenItWasWrittenNotByWhenItWasDelivered() {
    Outbox outbox = outbox(OutboxOptions.builder().retention(Duration.ofHours(1)));
    OutboxMessage message = store.add("Order", "o-1", "order.placed");
    clock.advance(Duration.ofMinutes(61));
    outbox.runOnce();

    assertThat(outbox.cleanUpOnce()).isEqualTo(1);
    assertThat(store.row(message.id())).isEmpty();
  }

  @Test
  void messagesBehindAHeadHeldOnADeadLetterAreNotDeleted() {
    Outbox outbox =
        outbox(
            OutboxOptions.builder()
                .retention(Duration.ZERO)
                .maxAttempts(1)
                .holdAggregateOnDeadLetter(true));
    OutboxMessage dead = store.add("Order", "o-1", "order.placed");
    OutboxMessage waiting = store.add("Order", "o-1", "order.paid");
    publisher.forMessage(dead.id(), Result.PERMANENT_FAILURE);
    outbox.runOnce();
    clock.advance(Duration.ofMillis(1));

    assertThat(outbox.cleanUpOnce()).isZero();
    assertThat(store.row(dead.id())).isPresent();
    assertThat(store.row(waiting.id())).isPresent();
    assertThat(store.head("Order", "o-1").orElseThrow().held()).isTrue();
  }

  @Test
  void retentionZeroDeletesMessagesAsSoonAsTheyArePublished() {
    Outbox outbox = outbox(OutboxOptions.builder().retention(Duration.ZERO));
    store.add("Order", "o-1", "order.placed");
    outbox.runOnce();
    clock.advance(Duration.ofMillis(1));

    assertThat(outbox.cleanUpOnce()).isEqualTo(1);
    assertThat(store.count(Status.PUBLISHED)).isZero();
  }

  @Test
  void cleanupDeletesInBatchesOfTheConfiguredSize() {
    Outbox outbox =
        outbox(OutboxOptions.builder().retention(Duration.ZERO).cleanupBatchSize(2).batchSize(10));
    for (int i = 0; i < 5; i++) {
      store.add("Order", "o-" + i, "order.placed");
    }
    outbox.runOnce();
    clock.advance(Duration.ofMillis(1));

    assertThat(outbox.cleanUpOnce()).isEqualTo(5);
    assertThat(countingStore.deleteLimits()).containsExactly(2, 2, 2);
  }

  @Test
  void cleanupRunsOnItsOwnScheduleOnceStarted() {
    Outbox outbox =
        outbox(
            OutboxOptions.builder()
                .retention(Duration.ZERO)
                .cleanupInterval(Duration.ofMillis(50))
                .pollInterval(Duration.ofMillis(20)));
    store.add("Order", "o-1", "order.placed");
    outbox.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> store.count(Status.PUBLISHED) == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> countingStore.deleteLimits().size() >= 2);
    clock.advance(Duration.ofMillis(1)); // retention zero: published before now is old enough
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> store.count(Status.PUBLISHED) == 0 && store.count(Status.PENDING) == 0);
  }
}
