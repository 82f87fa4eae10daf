package dev.outbox.testkit.kill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class KillScheduleTest {

  @Test
  void killsGoOnPastTheWindowUntilTheMinimumIsReached(@TempDir Path logs) throws Exception {
    KillSchedule schedule =
        KillSchedule.builder()
            .window(Duration.ofMillis(300))
            .extension(Duration.ofSeconds(30))
            .interval(Duration.ofMillis(100), Duration.ofMillis(200))
            .minKills(2)
            .minReadyBeforeKill(Duration.ZERO)
            .build();
    List<JvmFleet.Kill> reported = new CopyOnWriteArrayList<>();
    AtomicInteger ticks = new AtomicInteger();
    try (JvmFleet fleet =
        JvmFleet.builder(SleepingChild.class)
            .size(1)
            .logDir(logs)
            .maxHeapMegabytes(32)
            .readyLine(SleepingChild.READY)
            .build()) {
      fleet.startAll();
      fleet.awaitAllReady(Duration.ofSeconds(30));

      schedule.run(
          fleet,
          schedule.windowEnd(System.nanoTime()),
          id -> true,
          () -> false,
          ticks::incrementAndGet,
          reported::add);

      assertThat(fleet.kills()).hasSize(2).isEqualTo(reported);
      assertThat(fleet.kills())
          .extracting(JvmFleet.Kill::instanceId)
          .containsExactly("p0-r0", "p0-r1");
      assertThat(ticks).hasPositiveValue();
    }
  }

  @Test
  void noKillWhenTheTestSaysStop(@TempDir Path logs) throws Exception {
    KillSchedule schedule = KillSchedule.builder().window(Duration.ofSeconds(30)).build();
    try (JvmFleet fleet =
        JvmFleet.builder(SleepingChild.class).logDir(logs).readyLine(SleepingChild.READY).build()) {
      schedule.run(
          fleet,
          schedule.windowEnd(System.nanoTime()),
          id -> true,
          () -> true,
          () -> {},
          kill -> {});
      assertThat(fleet.kills()).isEmpty();
    }
  }

  @Test
  void defaultsAreThoseOfBothKillTests() {
    KillSchedule schedule = KillSchedule.builder().window(Duration.ofSeconds(30)).build();

    assertThat(schedule.minInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(schedule.maxInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(schedule.minKills()).isEqualTo(4);
    assertThat(schedule.minReadyBeforeKill()).isEqualTo(Duration.ofSeconds(1));
    assertThat(schedule.extension()).isZero();
    assertThat(schedule.windowEnd(1_000)).isEqualTo(1_000 + 30_000_000_000L);
  }

  @Test
  void theBuilderNamesTheBadValue() {
    assertThatThrownBy(() -> KillSchedule.builder().build())
        .hasMessage("window is required, but was not set");
    assertThatThrownBy(() -> KillSchedule.builder().window(Duration.ZERO))
        .hasMessage("window must be > 0, but was PT0S");
    assertThatThrownBy(
            () -> KillSchedule.builder().interval(Duration.ofSeconds(5), Duration.ofSeconds(3)))
        .hasMessage("maxInterval must be >= minInterval (PT5S), but was PT3S");
    assertThatThrownBy(() -> KillSchedule.builder().minKills(-1))
        .hasMessage("minKills must be >= 0, but was -1");
  }
}
