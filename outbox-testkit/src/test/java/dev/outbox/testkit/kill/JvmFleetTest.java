package dev.outbox.testkit.kill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class JvmFleetTest {

  private static JvmFleet fleet(Path logs, int size) {
    return JvmFleet.builder(SleepingChild.class)
        .size(size)
        .logDir(logs)
        .name("t")
        .instanceIdPrefix("x-")
        .maxHeapMegabytes(32)
        .readyLine(SleepingChild.READY)
        .arguments(List.of("a", "b"))
        .build();
  }

  @Test
  void aKilledChildIsReplacedBySuccessorAndSigtermStopsEveryChild(@TempDir Path logs)
      throws Exception {
    Files.writeString(logs.resolve("earlier-run.log"), "left over");
    try (JvmFleet fleet = fleet(logs, 2)) {
      assertThat(logs.resolve("earlier-run.log")).doesNotExist();
      fleet.startAll();
      fleet.awaitAllReady(Duration.ofSeconds(30));
      assertThat(fleet.lines(SleepingChild.ARGS))
          .containsExactly("ARGS x-t0-r0 a b", "ARGS x-t1-r0 a b");

      JvmFleet.Kill kill =
          fleet.killOneAndRestart(new Random(), Duration.ZERO, id -> id.equals("x-t1-r0"));

      assertThat(kill.instanceId()).isEqualTo("x-t1-r0");
      assertThat(kill.exitValue()).isEqualTo(137);
      assertThat(kill.startedIn()).isPositive().isLessThan(kill.upFor());
      assertThat(fleet.kills()).containsExactly(kill);
      assertThat(fleet.restarts()).isEqualTo(1);
      fleet.awaitAllReady(Duration.ofSeconds(30));
      assertThat(fleet.toString()).isEqualTo("x-t0-r0 running; x-t1-r1 running; ");
      assertThat(logs.resolve("t1-r1.log")).exists();
      assertThat(fleet.stopGracefully(Duration.ofSeconds(10))).isEmpty();
      assertThat(fleet.lines(SleepingChild.CLOSED))
          .containsExactlyInAnyOrder("CHILD CLOSED x-t0-r0", "CHILD CLOSED x-t1-r1");
      assertThat(fleet.deaths()).isEmpty();
    }
  }

  @Test
  void noChildIsKilledBeforeItHasBeenReadyLongEnoughOrWhenTheTestDoesNotAllowIt(@TempDir Path logs)
      throws Exception {
    try (JvmFleet fleet = fleet(logs, 1)) {
      fleet.startAll();
      fleet.awaitAllReady(Duration.ofSeconds(30));

      assertThat(fleet.killOneAndRestart(new Random(), Duration.ofMinutes(1), id -> true)).isNull();
      assertThat(fleet.killOneAndRestart(new Random(), Duration.ZERO, id -> false)).isNull();
      assertThat(fleet.kills()).isEmpty();
    }
  }

  @Test
  void aChildThatExitsOnItsOwnIsRecordedAsDeathAndRestarted(@TempDir Path logs) throws Exception {
    try (JvmFleet fleet = fleet(logs, 1)) {
      fleet.startAll();
      fleet.awaitAllReady(Duration.ofSeconds(30));
      ProcessHandle child = ProcessHandle.current().children().findFirst().orElseThrow();
      child.destroy();
      child.onExit().get();

      List<JvmFleet.Death> deaths = new ArrayList<>(fleet.restartTheDead());

      assertThat(deaths).extracting(JvmFleet.Death::instanceId).containsExactly("x-t0-r0");
      assertThat(deaths.get(0).tail()).contains("CHILD CLOSED x-t0-r0");
      assertThat(fleet.deaths()).isEqualTo(deaths);
      assertThat(fleet.restarts()).isEqualTo(1);
      fleet.awaitAllReady(Duration.ofSeconds(30));
    }
  }

  @Test
  void theBuilderNamesTheBadValue() {
    assertThatThrownBy(() -> JvmFleet.builder(SleepingChild.class).size(0))
        .hasMessage("size must be >= 1, but was 0");
    assertThatThrownBy(() -> JvmFleet.builder(SleepingChild.class).logDir(Path.of("x")).build())
        .hasMessage("logDir and readyLine are required, but were x and null");
  }
}
