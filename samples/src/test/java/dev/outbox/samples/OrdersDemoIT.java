package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The demo's default: embedded PostgreSQL and a Kafka broker in this JVM, nothing else needed. */
class OrdersDemoIT {

  @Test
  void embeddedDefaultDeliversEveryEventOnceInOrder() {
    DemoRun run = DemoRun.of("--orders", "200");

    assertThat(run.summaryLine())
        .as(run.out())
        .startsWith("summary: received 340/340 events, 0 duplicates, 0 out of order, latency p50 ");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("embedded PostgreSQL", "in-JVM broker", "orders placed");
  }
}
