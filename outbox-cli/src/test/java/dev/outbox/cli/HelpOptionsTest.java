package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every command and subcommand answers {@code --help} and {@code -h} with its own usage and exit
 * code 0, without a database; the top command answers {@code --version}.
 */
class HelpOptionsTest {

  /** Every command of the tree, top command included, as the words that call it. */
  static Stream<List<String>> commands() {
    CommandLine root = OutboxCli.commandLine(context());
    List<List<String>> paths = new ArrayList<>();
    collect(root, new ArrayList<>(), paths);
    return paths.stream();
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> paths) {
    paths.add(List.copyOf(path));
    command
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              // Aliases are listed under each name: walk each command once, by its own name.
              if (name.equals(sub.getCommandName())) {
                List<String> deeper = new ArrayList<>(path);
                deeper.add(name);
                collect(sub, deeper, paths);
              }
            });
  }

  @ParameterizedTest(name = "outbox {0} --help")
  @MethodSource("commands")
  void everyCommandPrintsItsUsageForHelpAndExitsZero(List<String> path) {
    CommandSpec spec = spec(path);
    for (String flag : List.of("--help", "-h")) {
      CliRun run = CliRun.of(CliRun.args(path.toArray(String[]::new), flag));

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.err()).as(run.toString()).isEmpty();
      assertThat(run.out()).as(run.toString()).contains("Usage: " + spec.qualifiedName() + " ");
      for (OptionSpec option : spec.options()) {
        if (!option.hidden()) {
          assertThat(run.out()).as(run.toString()).contains(option.longestName());
        }
      }
      for (String subcommand : spec.subcommands().keySet()) {
        assertThat(run.out()).as(run.toString()).contains(subcommand);
      }
    }
  }

  @Test
  void statusHelpListsTheDatabaseAndWatchOptions() {
    CliRun run = CliRun.of("status", "--help");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .startsWith("Usage: outbox status ")
        .contains("--url", "--user", "--password-env", "--json", "--watch", "--iterations")
        .contains("-h, --help", "--verbose");
  }

  @Test
  void replayHelpListsTheSelectionAndTheSafetyOptions() {
    CliRun run = CliRun.of("dead-letters", "replay", "-h");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .startsWith("Usage: outbox dead-letters replay ")
        .contains("[ID...]", "--all", "--since", "--error", "--dry-run", "--expect");
  }

  @Test
  void theTopCommandListsItsCommandsAndExitCodes() {
    CliRun run = CliRun.of("--help");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .startsWith("Usage: outbox ")
        .contains("status", "dead-letters", "-V, --version", "Exit codes:", "--expect differs");
  }

  @Test
  void theTopCommandPrintsItsVersion() {
    for (String flag : List.of("--version", "-V")) {
      CliRun run = CliRun.of(flag);

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out()).as(run.toString()).startsWith("outbox ");
    }
  }

  @Test
  void helpBeforeOtherArgumentsNeedsNoDatabase() {
    CliRun run =
        CliRun.withEnv(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/nowhere"),
            "dead-letters",
            "purge",
            "--all",
            "--help");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).startsWith("Usage: outbox dead-letters purge ");
  }

  private static CommandSpec spec(List<String> path) {
    CommandLine command = OutboxCli.commandLine(context());
    for (String name : path) {
      command = command.getSubcommands().get(name);
    }
    return command.getCommandSpec();
  }

  private static Context context() {
    return new Context(
        Map.of(),
        new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()),
        Clock.systemUTC(),
        false);
  }
}
