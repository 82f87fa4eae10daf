package dev.outbox.samples.payments;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bad input and an unreachable database: exit code 2 and exactly one line on standard error that
 * says what is wrong and how to fix it, no stack trace. Nothing here needs a server: the
 * unreachable one is a closed loopback port.
 */
class PaymentsDemoBadInputTest {

  /** The outcome of one run of the demo in this JVM. */
  private record Run(int exit, String out, List<String> errLines) {
    static Run of(String... args) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit =
          PaymentsDemo.run(
              args,
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      return new Run(
          exit,
          out.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8).lines().toList());
    }
  }

  @Test
  void helpPrintsTheOptionsAndExitsWith0() {
    Run run = Run.of("--help");

    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains("--payments N", "--jdbc-url URL", "--amqp-uri URI");
    assertThat(run.errLines()).isEmpty();
  }

  @Test
  void unknownOptionIsNamed() {
    assertOneErrorLine(Run.of("--orders", "5"), "unknown option --orders; see --help");
  }

  @Test
  void aNumberOutOfRangeIsNamedWithItsRange() {
    assertOneErrorLine(
        Run.of("--payments=0"), "--payments must be a whole number from 1 to 100000, but was '0'");
  }

  @Test
  void malformedJdbcUrlIsExplained() {
    assertOneErrorLine(
        Run.of("--jdbc-url", "postgres://127.0.0.1/test"),
        "--jdbc-url must be a PostgreSQL JDBC URL like jdbc:postgresql://");
  }

  @Test
  void unreachableDatabaseIsExplainedWithoutItsPassword() {
    Run run = Run.of("--jdbc-url", "jdbc:postgresql://127.0.0.1:1/test?user=app&password=s3cret");

    assertOneErrorLine(
        run, "PostgreSQL is not usable at jdbc:postgresql://127.0.0.1:1/test", "start it");
    assertThat(run.errLines().get(0)).doesNotContain("s3cret");
  }

  private static void assertOneErrorLine(Run run, String... fragments) {
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.errLines().get(0)).startsWith("error: ").contains(fragments);
  }
}
