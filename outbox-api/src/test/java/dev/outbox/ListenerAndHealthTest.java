package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.FlakyStore;
import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.ScriptedPublisher.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Listeners hear about everything the outbox does; health tells what waits and what failed. */
class ListenerAndHealthTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final FlakyStore flaky = new FlakyStore(store);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final List<String> heard = new CopyOnWriteArrayList<>();
  private Outbox outbox;

  private final OutboxListener recording =
      new OutboxListener() {
        @Override
        public void published(OutboxMessage message, String destination, Instant publishedAt) {
          heard.add("published " + message.aggregateId() + " at " + publishedAt);
        }

        @Override
        public void failed(
            OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {
          heard.add("failed " + message.aggregateId() + " attempt " + attempt);
        }

        @Override
        public void deadLettered(OutboxMessage message, int attempts, PublishException error) {
          heard.add("dead " + message.aggregateId() + " after " + attempts);
        }

        @Override
        public void replayed(int count) {
          heard.add("replayed " + count);
        }

        @Override
        public void cleanedUp(int deleted) {
          heard.add("cleaned " + deleted);
        }

        @Override
        public void batchCompleted(
            int size, int published, Duration claim, Duration publish, Duration record) {
          heard.add("batch " + size + "/" + published);
        }
      };

  private Outbox outbox(OutboxOptions.Builder options) {
    outbox =
        Outbox.create(
            options.instanceId("test-1").retention(Duration.ZERO).build(), flaky, publisher, clock);
    return outbox;
  }

  @AfterEach
  void close() {
    outbox.close();
  }

  @Test
  void listenerHearsOfPublishFailureDeadLetterReplayAndCleanup() {
    outbox(OutboxOptions.builder().maxAttempts(2).listener(recording));
    store.add("Order", "a", "order.placed");
    OutboxMessage failing = store.add("Order", "b", "order.placed");
    publisher.forMessage(failing.id(), Result.RETRYABLE_FAILURE, Result.RETRYABLE_FAILURE);

    outbox.runOnce();
    clock.advance(Duration.ofMinutes(10));
    outbox.runOnce();
    outbox.deadLetters().replayAll(DeadLetterQuery.all());
    outbox.runOnce();
    clock.advance(Duration.ofMillis(1));
    outbox.cleanUpOnce();

    Instant later = T0.plus(Duration.ofMinutes(10));
    assertThat(heard)
        .containsExactly(
            "published a at " + T0,
            "failed b attempt 1",
            "batch 2/1",
            "dead b after 2",
            "batch 1/0",
            "replayed 1",
            "published b at " + later,
            "batch 1/1",
            // The dead-lettered row left the table when it was dead-lettered (as in the JDBC
            // store); the two delivered ones are cleaned up.
            "cleaned 2");
  }

  @Test
  void listenerThatThrowsDoesNotStopPublishingNorTheOtherListeners() {
    outbox(
        OutboxOptions.builder()
            .listener(
                new OutboxListener() {
                  @Override
                  public void published(OutboxMessage m, String destination, Instant at) {
                    throw new IllegalStateException("listener bug");
                  }
                })
            .listener(recording));
    store.add("Order", "a", "order.placed");
    store.add("Order", "b", "order.placed");

    assertThat(outbox.runOnce()).isEqualTo(2);

    assertThat(store.count(InMemoryOutboxStore.Status.PUBLISHED)).isEqualTo(2);
    assertThat(heard).contains("published a at " + T0, "published b at " + T0, "batch 2/2");
  }

  @Test
  void healthShowsPendingLagDeadLettersAndTheLastError() {
    outbox(OutboxOptions.builder().maxAttempts(1));
    OutboxMessage dead = store.add("Order", "a", "order.placed");
    publisher.forMessage(dead.id(), Result.PERMANENT_FAILURE);
    outbox.runOnce();
    store.add("Order", "b", "order.placed");
    clock.advance(Duration.ofSeconds(42));

    OutboxHealth health = outbox.health();

    assertThat(health.running()).isFalse();
    assertThat(health.instanceId()).isEqualTo("test-1");
    assertThat(health.pending()).isEqualTo(1);
    assertThat(health.lag()).isEqualTo(Duration.ofSeconds(42));
    assertThat(health.deadLetters()).isEqualTo(1);
    assertThat(health.lastError()).contains("message too large");
    assertThat(health.lastErrorAt()).isEqualTo(T0);
    assertThat(health.checkedAt()).isEqualTo(T0.plusSeconds(42));
  }

  @Test
  void healthOfAStoreThatCannotBeReadIsUnhealthyAndNamesTheError() {
    outbox(OutboxOptions.builder());
    outbox.start();
    flaky.failNextClaims(1_000);

    OutboxHealth health = outbox.health();

    assertThat(health.running()).isTrue();
    assertThat(health.pending()).isEqualTo(-1);
    assertThat(health.isHealthy()).isFalse();
    assertThat(health.lastError()).contains("database unreachable");
  }
}
