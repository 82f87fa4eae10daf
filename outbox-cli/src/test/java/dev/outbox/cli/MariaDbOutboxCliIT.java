package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tool on MariaDB, where a wrong password is refused (PostgreSQL here trusts every login). */
class MariaDbOutboxCliIT extends AbstractOutboxCliIT {

  @Override
  CliDatabase.Server server() {
    return CliDatabase.Server.MARIADB;
  }

  @Test
  void aRefusedLoginNamesTheUserButNeverThePassword() {
    CliRun run =
        CliRun.withEnv(
            Map.of("DB_PASSWORD", "not-roots-password-7"),
            "status",
            "--url",
            "jdbc:mariadb://127.0.0.1:3306/test",
            "--user",
            "root",
            "--password-env",
            "DB_PASSWORD",
            "--verbose");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.err()).contains("as root").doesNotContain("not-roots-password-7");
  }
}
