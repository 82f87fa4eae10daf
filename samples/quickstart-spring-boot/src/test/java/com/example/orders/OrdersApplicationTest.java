package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs the quick start against the local PostgreSQL and RabbitMQ, in a schema of its own that it
 * drops afterwards. Skipped, saying what to start, when a server does not run (failed when {@code
 * CI=true}).
 */
class OrdersApplicationTest {

  private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  @Test
  void theOrderPlacedEventArrivesThroughRabbitMq() throws Exception {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable("RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached");
    String schema = "quickstart_" + UUID.randomUUID().toString().substring(0, 8);
    try (ConfigurableApplicationContext context =
        SpringApplication.run(
            OrdersApplication.class,
            "--spring.datasource.hikari.schema=" + schema,
            "--spring.flyway.schemas=" + schema)) {
      String received =
          context.getBean(OrdersApplication.FirstOrder.class).placeAndReceiveItsEvent();

      assertThat(received)
          .as("the event as the consumer received it")
          .startsWith("order.placed of Order ")
          .contains("\"total\":12.5");
    } finally {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private static void execute(String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(DATABASE);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
