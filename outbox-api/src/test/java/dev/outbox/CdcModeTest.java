package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * In CDC mode the outbox publishes nothing (the connector reads the log), deletes every message by
 * age, keeps the heads (their seq goes on), and says so in its health.
 */
class CdcModeTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore countingStore = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private Outbox outbox;

  private Outbox outbox(OutboxOptions.Builder options) {
    outbox =
        Outbox.create(
            options.deliveryMode(DeliveryMode.CDC).instanceId("cdc-1").build(),
            countingStore,
            publisher,
            clock);
    return outbox;
  }

  @AfterEach
  void close() {
    if (outbox != null) {
      outbox.close();
    }
  }

  @Test
  void aStartedOutboxPublishesNothingButCleansUpEveryMessageByAge() {
    Outbox outbox =
        outbox(
            OutboxOptions.builder()
                .retention(Duration.ofHours(1))
                .cleanupInterval(Duration.ofMillis(20))
                .pollInterval(Duration.ofMillis(10)));
    OutboxMessage old = store.add("Order", "o-1", "order.placed");
    clock.advance(Duration.ofMinutes(61));
    OutboxMessage recent = store.add("Order", "o-1", "order.paid");
    outbox.start();
    outbox.wakeUp();

    await().atMost(Duration.ofSeconds(10)).until(() -> store.row(old.id()).isEmpty());
    assertThat(outbox.isRunning()).isTrue();
    assertThat(store.row(recent.id())).as("younger than the retention").isPresent();
    assertThat(publisher.calls()).as("the connector publishes, not the outbox").isEmpty();
    assertThat(store.count(Status.PUBLISHED)).isZero();
    assertThat(store.head("Order", "o-1"))
        .as("the head keeps the aggregate's last seq for the next message")
        .hasValueSatisfying(head -> assertThat(head.writeSeq()).isEqualTo(2));
  }

  @Test
  void cleanupDeletesInBatchesWhateverTheCursor() {
    Outbox outbox = outbox(OutboxOptions.builder().retention(Duration.ZERO).cleanupBatchSize(2));
    for (int i = 0; i < 5; i++) {
      store.add("Order", "o-" + i, "order.placed");
    }
    clock.advance(Duration.ofMillis(1));

    assertThat(outbox.cleanUpOnce()).isEqualTo(5);
    assertThat(countingStore.deleteLimits()).containsExactly(2, 2, 2);
    assertThat(store.count(Status.PENDING)).isZero();
  }

  @Test
  void runOnceSaysTheConnectorDelivers() {
    Outbox outbox = outbox(OutboxOptions.builder());
    store.add("Order", "o-1", "order.placed");

    assertThatThrownBy(outbox::runOnce)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("CDC mode");
    assertThat(publisher.calls()).isEmpty();
  }

  @Test
  void healthSaysWhichModeRunsAndReportsNoPendingOfItsOwn() {
    Outbox outbox = outbox(OutboxOptions.builder());
    store.add("Order", "o-1", "order.placed");
    outbox.start();

    OutboxHealth health = outbox.health();
    assertThat(health.deliveryMode()).isEqualTo(DeliveryMode.CDC);
    assertThat(health.running()).isTrue();
    assertThat(health.pending()).isZero();
    assertThat(health.lag()).isEqualTo(Duration.ZERO);
    assertThat(health.isHealthy()).isTrue();
  }

  @Test
  void closeReturnsAtOnceWithNoProcessorToWaitFor() {
    Outbox outbox = outbox(OutboxOptions.builder());
    outbox.start();
    outbox.close();

    assertThat(outbox.isRunning()).isFalse();
  }
}
