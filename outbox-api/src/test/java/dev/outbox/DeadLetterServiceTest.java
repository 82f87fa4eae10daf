package dev.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.InMemoryOutboxStore;
import dev.outbox.testing.InMemoryOutboxStore.Status;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.ScriptedPublisher;
import dev.outbox.testing.ScriptedPublisher.Result;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Dead letters are listed, counted, replayed and purged one by one or by query. */
class DeadLetterServiceTest {

  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryOutboxStore store = new InMemoryOutboxStore(clock);
  private final ScriptedPublisher publisher = new ScriptedPublisher();
  private final Outbox outbox =
      Outbox.create(
          OutboxOptions.builder().instanceId("test-1").maxAttempts(1).build(),
          store,
          publisher,
          clock);
  private final DeadLetterService deadLetters = outbox.deadLetters();

  @BeforeEach
  void deadLetterFiveMessages() {
    for (int i = 0; i < 5; i++) {
      String type = i < 3 ? "order.placed" : "order.cancelled";
      OutboxMessage message = store.add("Order", "o-" + i, type);
      publisher.forMessage(message.id(), Result.PERMANENT_FAILURE);
    }
    outbox.runOnce();
    assertThat(deadLetters.count(DeadLetterQuery.all())).isEqualTo(5);
  }

  @AfterEach
  void close() {
    outbox.close();
  }

  @Test
  void replayAllReplaysExactlyTheDeadLettersTheQueryMatches() {
    int replayed = deadLetters.replayAll(DeadLetterQuery.all().eventType("order.placed"));

    assertThat(replayed).isEqualTo(3);
    assertThat(deadLetters.list(DeadLetterQuery.all()))
        .extracting(d -> d.message().eventType())
        .containsOnly("order.cancelled");
    // Version 2: without a hold each is appended to its aggregate again; the original rows left
    // the outbox when they were dead-lettered.
    assertThat(store.count(Status.PENDING)).isEqualTo(3);
    assertThat(store.stats().deadLetters()).isEqualTo(2);
    outbox.runOnce();
    assertThat(store.count(Status.PUBLISHED)).isEqualTo(3);
  }

  @Test
  void purgeAllDeletesTheMatchingDeadLettersForGood() {
    int purged = deadLetters.purgeAll(DeadLetterQuery.all().eventType("order.cancelled"));

    assertThat(purged).isEqualTo(2);
    assertThat(deadLetters.count(DeadLetterQuery.all())).isEqualTo(3);
    assertThat(store.count(Status.PENDING)).isZero();
  }

  @Test
  void oneDeadLetterIsFoundByItsIdWithItsLastError() {
    DeadLetter first = deadLetters.list(DeadLetterQuery.all().page(0, 1)).get(0);

    assertThat(deadLetters.find(first.message().id())).contains(first);
    assertThat(deadLetters.find(java.util.UUID.randomUUID())).isEmpty();
    assertThat(first.lastError()).contains("message too large");
    assertThat(deadLetters.count(DeadLetterQuery.all().errorContains("MESSAGE TOO LARGE")))
        .isEqualTo(5);
    assertThat(
            deadLetters.count(DeadLetterQuery.all().errorContains(first.message().id().toString())))
        .isEqualTo(1);
    assertThat(deadLetters.count(DeadLetterQuery.all().errorContains("no such text"))).isZero();
  }

  @Test
  void replayOfManyIdsReplaysEach() {
    List<java.util.UUID> ids =
        deadLetters.list(DeadLetterQuery.all().page(0, 2)).stream()
            .map(d -> d.message().id())
            .toList();

    assertThat(deadLetters.replay(ids)).isEqualTo(2);
    assertThat(deadLetters.count(DeadLetterQuery.all())).isEqualTo(3);
    assertThat(ids)
        .allSatisfy(
            id -> assertThat(store.row(id).orElseThrow().status()).isEqualTo(Status.PENDING));
  }

  @Test
  void deadLettersOfOneAggregateTypeAreFoundWithoutAnId() {
    assertThat(deadLetters.count(DeadLetterQuery.all().aggregate("Order", null))).isEqualTo(5);
    assertThat(deadLetters.count(DeadLetterQuery.all().aggregate("Invoice", null))).isZero();
  }
}
