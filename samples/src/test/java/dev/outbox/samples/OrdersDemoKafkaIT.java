package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Kafka (in this JVM, there is no Kafka server on the machine) with the local PostgreSQL. */
class OrdersDemoKafkaIT {

  @BeforeAll
  static void serversRun() {
    RequiredServer.assumePostgres();
  }

  @Test
  void kafkaWithLocalPostgresDeliversEveryEventOnceInOrder() {
    DemoRun run =
        DemoRun.of("--broker", "kafka", "--orders", "200", "--jdbc-url", DemoRun.LOCAL_POSTGRES);

    assertThat(run.summaryLine())
        .as(run.out())
        .startsWith("summary: received 340/340 events, 0 duplicates, 0 out of order");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("database: PostgreSQL at jdbc:postgresql://127.0.0.1:5432");
  }
}
