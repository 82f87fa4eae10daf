package dev.outbox.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Bad input and unreachable servers: exit code 2 and exactly one line on standard error that says
 * what is wrong and how to fix it, no stack trace. Nothing here needs a server: unreachable ones
 * are closed loopback ports.
 */
class OrdersDemoBadInputTest {

  @Test
  void unknownBrokerExitsWithCode2AndOneLineNamingTheBrokers() {
    DemoRun run = DemoRun.of("--broker", "kafak");

    assertOneErrorLine(run, "unknown broker 'kafak'", "kafka, rabbitmq, nats, azure-servicebus");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void malformedJdbcUrlIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--jdbc-url", "postgres://127.0.0.1/test"),
        "--jdbc-url must be a PostgreSQL JDBC URL like jdbc:postgresql://");
  }

  @Test
  void unreachableDatabaseIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--jdbc-url", "jdbc:postgresql://127.0.0.1:1/test?user=postgres"),
        "PostgreSQL is not usable at jdbc:postgresql://127.0.0.1:1/test",
        "omit it to use the embedded PostgreSQL");
  }

  @Test
  void malformedBootstrapServersAreExplained() {
    assertOneErrorLine(
        DemoRun.of("--bootstrap-servers", "kafka 9092"),
        "--bootstrap-servers must be host:port[,host:port]");
  }

  @Test
  void unreachableKafkaIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--bootstrap-servers", "127.0.0.1:1"),
        "Kafka is not reachable at 127.0.0.1:1",
        "omit --bootstrap-servers to use the in-JVM one");
  }

  @Test
  void unreachableRabbitMqIsExplainedWithoutItsPassword() {
    DemoRun run =
        DemoRun.of("--broker", "rabbitmq", "--amqp-uri", "amqp://guest:s3cret@127.0.0.1:1");

    assertOneErrorLine(run, "RabbitMQ is not reachable at amqp://guest:****@127.0.0.1:1");
    assertThat(run.errLines().get(0)).doesNotContain("s3cret");
  }

  @Test
  void malformedAmqpUriIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--broker", "rabbitmq", "--amqp-uri", "http://127.0.0.1:5672"),
        "--amqp-uri must look like amqp://user:password@host:5672/vhost");
  }

  @Test
  void unreachableNatsIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--broker", "nats", "--nats-url", "nats://127.0.0.1:1"),
        "NATS is not reachable at nats://127.0.0.1:1: start nats-server -js");
  }

  @Test
  void malformedNatsUrlIsExplained() {
    assertOneErrorLine(
        DemoRun.of("--broker", "nats", "--nats-url", "nats://127.0.0.1:port"),
        "--nats-url must look like nats://host:4222");
  }

  @Test
  void serviceBusWithoutConnectionStringSaysWhatToPass() {
    assertOneErrorLine(
        DemoRun.of("--broker", "azure-servicebus"),
        "azure-servicebus has no local default: pass --servicebus-connection-string");
  }

  @Test
  void malformedServiceBusConnectionStringIsExplainedWithoutTheKey() {
    DemoRun run =
        DemoRun.of(
            "--broker",
            "azure-servicebus",
            "--servicebus-connection-string",
            "SharedAccessKey=k3y");

    assertOneErrorLine(run, "--servicebus-connection-string must look like Endpoint=sb://");
    assertThat(run.errLines().get(0)).doesNotContain("k3y");
  }

  @Test
  void orderCountMustBePositive() {
    assertOneErrorLine(
        DemoRun.of("--orders", "-5"), "--orders must be a whole number from 1 to 1000000");
  }

  @Test
  void unknownOptionIsNamed() {
    assertOneErrorLine(DemoRun.of("--order", "5"), "unknown option --order; see --help");
  }

  @Test
  void helpPrintsUsageAndExitsZero() {
    DemoRun run = DemoRun.of("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("--broker kafka|rabbitmq|nats|azure-servicebus", "--jdbc-url");
    assertThat(run.errLines()).isEmpty();
  }

  private static void assertOneErrorLine(DemoRun run, String... fragments) {
    assertThat(run.exitCode()).as("exit code").isEqualTo(2);
    assertThat(run.errLines()).as("standard error").hasSize(1);
    assertThat(run.errLines().get(0)).startsWith("error: ").contains(fragments);
    assertThat(run.errLines().get(0)).doesNotContain("Exception", "\tat ");
  }
}
