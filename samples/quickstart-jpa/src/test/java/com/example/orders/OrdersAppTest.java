package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Runs the quick start against the local PostgreSQL and RabbitMQ, in a schema of its own that it
 * drops afterwards. Skipped, saying what to start, when a server does not run (failed when {@code
 * CI=true}).
 */
class OrdersAppTest {

  private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  private static final String BROKER = "amqp://guest:guest@127.0.0.1:5672/%2F";

  @Test
  void theOrderPlacedEventArrivesThroughRabbitMq() throws Exception {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable("RabbitMQ", "127.0.0.1", 5672, "rabbitmq-server -detached");
    String schema = "quickstart_" + UUID.randomUUID().toString().substring(0, 8);
    try {
      String received = OrdersApp.placeOrderAndReceiveItsEvent(DATABASE, schema, BROKER);

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
