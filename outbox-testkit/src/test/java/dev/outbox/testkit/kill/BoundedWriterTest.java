package dev.outbox.testkit.kill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class BoundedWriterTest {

  private static final List<String> IDS = List.of("a", "b", "c", "d", "e", "f");

  @Test
  void stopsOnceMaxEventsAreCommittedAndCountsEachAggregate() throws Exception {
    Map<String, Integer> seen = new ConcurrentHashMap<>();
    BoundedWriter writer =
        new BoundedWriter(
            "w",
            IDS,
            3,
            4,
            steps -> {
              assertThat(steps).hasSize(2);
              steps.forEach(
                  step -> {
                    assertThat(step.committedBefore())
                        .isEqualTo(seen.getOrDefault(step.aggregateId(), 0));
                    assertThat(step.events()).isBetween(1, 4);
                    seen.merge(step.aggregateId(), step.events(), Integer::sum);
                  });
            });

    writer.start(200, 1_000_000, System.nanoTime() + Duration.ofSeconds(20).toNanos());
    writer.await(Duration.ofSeconds(20));

    assertThat(writer.total()).isBetween(200, 200 + 3 * 8);
    assertThat(writer.eventsPerAggregate()).isEqualTo(seen);
    assertThat(seen.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(writer.total());
    assertThat(writer.transactions()).isPositive();
    assertThat(writer.rolledBack()).isEmpty();
  }

  @Test
  void keepsToTheRateAndStopsAtTheDeadline() throws Exception {
    BoundedWriter writer = new BoundedWriter("w", IDS, 2, 1, steps -> {});

    writer.start(1_000_000, 20, System.nanoTime() + Duration.ofMillis(1_000).toNanos());
    writer.await(Duration.ofSeconds(5));

    // 20 a second for one second, and the first transaction of each thread before any wait.
    assertThat(writer.total()).isBetween(16, 24);
  }

  @Test
  void triesFailedTransactionAgainAndKeepsTheRootCause() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    BoundedWriter writer =
        new BoundedWriter(
            "w",
            IDS,
            1,
            1,
            steps -> {
              if (calls.incrementAndGet() % 2 == 1) {
                throw new IllegalStateException("outer", new RuntimeException("deadlock"));
              }
            });

    writer.start(10, 1_000_000, System.nanoTime() + Duration.ofSeconds(10).toNanos());
    writer.await(Duration.ofSeconds(10));

    assertThat(writer.total()).isEqualTo(10);
    assertThat(writer.rolledBack())
        .hasSize(5)
        .first()
        .isEqualTo("[a, b]: java.lang.RuntimeException: deadlock");
  }

  @Test
  void aTransactionFailingFiveTimesStopsItsThread() throws Exception {
    BoundedWriter writer =
        new BoundedWriter(
            "w",
            IDS,
            1,
            1,
            steps -> {
              throw new IllegalStateException("no database");
            });

    writer.start(10, 1_000_000, System.nanoTime() + Duration.ofSeconds(10).toNanos());

    assertThatThrownBy(() -> writer.await(Duration.ofSeconds(10)))
        .hasMessageContaining("A writer failed")
        .hasRootCauseMessage("no database");
    assertThat(writer.rolledBack()).hasSize(BoundedWriter.ATTEMPTS);
    assertThat(writer.total()).isZero();
  }

  @Test
  void eachThreadNeedsTwoAggregates() {
    assertThatThrownBy(() -> new BoundedWriter("w", IDS, 4, 1, steps -> {}))
        .hasMessage(
            "threads must be between 1 and half the 6 aggregates (each transaction writes two of"
                + " its thread's), but was 4");
  }
}
