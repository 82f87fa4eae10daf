package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A password typed on the command line is refused without being repeated, and one written in the
 * URL is masked wherever an error repeats the URL.
 */
class PasswordArgumentsTest {

  @Test
  void aPasswordOptionIsRefusedWithoutRepeatingIt() {
    for (CliRun run :
        new CliRun[] {
          CliRun.of("status", "--url", "jdbc:postgresql://db/x", "--password", "typed-secret"),
          CliRun.of("dead-letters", "list", "--password=typed-secret")
        }) {
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
      assertThat(run.err())
          .as(run.toString())
          .contains("there is no --password option")
          .contains("--password-env")
          .doesNotContain("typed-secret");
      assertThat(run.out()).doesNotContain("typed-secret");
    }
  }

  @Test
  void aPasswordInTheUrlIsMaskedInTheDriversError() {
    // PgJDBC repeats a URL it cannot parse (here: its port) in its exception's message.
    CliRun run =
        CliRun.of(
            "status",
            "--url",
            "jdbc:postgresql://127.0.0.1:abc/test?password=url-pg-secret",
            "--verbose");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.err())
        .contains("Unable to parse URL")
        .contains("password=****")
        .doesNotContain("url-pg-secret");
  }
}
