package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** NATS with JetStream and PostgreSQL on 127.0.0.1. */
class OrdersDemoNatsIT {

  @BeforeAll
  static void serversRun() {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable(
        "NATS",
        "127.0.0.1",
        4222,
        "/usr/sbin/nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server");
  }

  @Test
  void natsJetStreamDeliversEveryEventOnceInOrder() {
    DemoRun run =
        DemoRun.of("--broker", "nats", "--orders", "200", "--jdbc-url", DemoRun.LOCAL_POSTGRES);

    assertThat(run.summaryLine())
        .as(run.out())
        .startsWith("summary: received 340/340 events, 0 duplicates, 0 out of order");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("NATS JetStream stream OUTBOX_SAMPLE_");
  }
}
