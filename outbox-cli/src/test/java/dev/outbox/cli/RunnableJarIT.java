package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The packaged tool, {@code target/outbox-cli-<version>-all.jar}, run as its own process the way
 * {@code bin/outbox} runs it: it starts, answers on PostgreSQL, and prints only its own lines.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunnableJarIT {

  private CliDatabase db;

  @BeforeAll
  void startDatabase() {
    db = CliDatabase.start(CliDatabase.Server.POSTGRESQL);
    db.clear();
  }

  @AfterAll
  void closeDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void theJarPrintsItsVersion() throws Exception {
    CliRun run = java("--version");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out().strip()).matches("outbox \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void theJarReadsTheStatusAndWritesNothingButItsJson() throws Exception {
    db.writer("orders").write(4, 2, 1);

    CliRun run = java(db.args("status", "--json"));

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.err()).as("no library logging").isEmpty();
    JsonNode status = new ObjectMapper().readTree(run.out());
    assertThat(status.get("pending").asLong()).isEqualTo(4);
  }

  @Test
  void aFailureIsOneLineOnStandardErrorAndItsExitCode() throws Exception {
    CliRun run = java("status", "--url", db.url(), "--outbox-table", "no_such_outbox");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(4);
    assertThat(run.err().lines()).as(run.toString()).hasSize(1);
    assertThat(run.out()).isEmpty();
  }

  private static CliRun java(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile("outbox-cli", ".out");
    Path err = Files.createTempFile("outbox-cli", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("outbox " + String.join(" ", args) + " did not end in 60 s");
      }
      return new CliRun(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static Path jar() throws IOException {
    try (Stream<Path> files = Files.list(Paths.get("target"))) {
      return files
          .filter(p -> p.getFileName().toString().matches("outbox-cli-.*-all\\.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no target/outbox-cli-*-all.jar: run mvn verify"));
    }
  }
}
