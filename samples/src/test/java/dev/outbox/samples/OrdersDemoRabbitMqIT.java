package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** RabbitMQ and PostgreSQL on 127.0.0.1. */
class OrdersDemoRabbitMqIT {

  @BeforeAll
  static void serversRun() {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable(
        "RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached (guest/guest)");
  }

  @Test
  void rabbitMqDeliversEveryEventOnceInOrder() {
    DemoRun run =
        DemoRun.of("--broker", "rabbitmq", "--orders", "200", "--jdbc-url", DemoRun.LOCAL_POSTGRES);

    assertThat(run.summaryLine())
        .as(run.out())
        .startsWith("summary: received 340/340 events, 0 duplicates, 0 out of order");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("RabbitMQ exchange outbox-sample-");
  }

  @Test
  void refusedCredentialsAreNamedNotTakenForAnUnreachableBroker() {
    DemoRun run =
        DemoRun.of(
            "--broker",
            "rabbitmq",
            "--amqp-uri",
            "amqp://guest:wr0ng-pass@127.0.0.1:5672",
            "--jdbc-url",
            DemoRun.LOCAL_POSTGRES);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .contains("RabbitMQ at amqp://guest:****@127.0.0.1:5672 refused the credentials of user")
        .contains("'guest'")
        .doesNotContain("not reachable")
        .doesNotContain("wr0ng-pass");
  }
}
