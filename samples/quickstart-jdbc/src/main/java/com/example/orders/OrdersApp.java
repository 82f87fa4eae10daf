package com.example.orders;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.rabbitmq.RabbitMqEventPublisher;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The quick start: migrates the database, starts the outbox, places one order in a plain JDBC
 * transaction that also sends its {@code order.placed} event, and prints the event as a consumer
 * receives it from RabbitMQ.
 *
 * <pre>
 * mvn -q compile exec:java
 * mvn -q compile exec:java -Djdbc.url='jdbc:postgresql://db:5432/shop?user=app&amp;password=…' -Damqp.uri=amqp://app:…@rabbit:5672/%2F
 * </pre>
 *
 * <p>Its tables live in a schema of their own ({@code orders}, or {@code -Ddb.schema}), which
 * Flyway creates: they never meet the other tables of the database.
 */
public final class OrdersApp {

  /** The exchange the outbox publishes to. */
  static final String EXCHANGE = "orders.events";

  private OrdersApp() {}

  /**
   * Runs the quick start once.
   *
   * @param args none; the servers come from {@code -Djdbc.url} and {@code -Damqp.uri}
   * @throws Exception when a server cannot be reached or refuses
   */
  public static void main(String[] args) throws Exception {
    String jdbcUrl =
        System.getProperty("jdbc.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    String schema = System.getProperty("db.schema", "orders");
    String amqpUri = System.getProperty("amqp.uri", "amqp://guest:guest@127.0.0.1:5672/%2F");
    String received = placeOrderAndReceiveItsEvent(jdbcUrl, schema, amqpUri);
    if (received == null) {
      System.out.println("No event arrived within 30 s: the outbox's warnings above say why.");
      System.exit(1);
    }
    System.out.println("Received " + received);
  }

  /**
   * Places one order and waits for its event to arrive through RabbitMQ.
   *
   * @param jdbcUrl the PostgreSQL database
   * @param schema the schema of the application's and the outbox's tables
   * @param amqpUri the RabbitMQ broker
   * @return the event as received, or {@code null} when it did not arrive within 30 s
   * @throws Exception when a server cannot be reached or refuses
   */
  static String placeOrderAndReceiveItsEvent(String jdbcUrl, String schema, String amqpUri)
      throws Exception {
    try (HikariDataSource dataSource = new HikariDataSource(pool(jdbcUrl, schema));
        OrderEvents events = OrderEvents.subscribe(amqpUri, EXCHANGE, "order.placed")) {
      migrate(dataSource, schema);

      JdbcOutbox jdbcOutbox = JdbcOutbox.create(dataSource, OutboxOptions.defaults());
      RabbitMqEventPublisher publisher =
          new RabbitMqEventPublisher(
              RabbitMqPublisherOptions.builder().uri(amqpUri).exchange(EXCHANGE).build());
      try (Outbox outbox = jdbcOutbox.outbox(publisher)) {
        outbox.start(); // the processor, and the cleanup of delivered messages

        UUID orderId = UUID.randomUUID();
        BigDecimal total = new BigDecimal("12.50");
        // One transaction: commits the order and its event together, or neither; after the
        // commit this JVM's processor publishes at once.
        jdbcOutbox.inTransaction(
            connection -> {
              try (PreparedStatement insert =
                  connection.prepareStatement("INSERT INTO orders (id, total) VALUES (?, ?)")) {
                insert.setObject(1, orderId);
                insert.setBigDecimal(2, total);
                insert.executeUpdate();
              }
              jdbcOutbox.send(
                  connection, "Order", orderId.toString(), new OrderPlaced(orderId, total));
              return null;
            });

        return events.await(orderId.toString(), Duration.ofSeconds(30));
      } // close(): the batch in flight finishes, the publisher closes
    }
  }

  private static HikariConfig pool(String jdbcUrl, String schema) {
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(jdbcUrl);
    pool.setSchema(schema); // each connection's search path
    pool.setMaximumPoolSize(10); // the processor takes one connection while it works
    return pool;
  }

  /**
   * Your migrations ({@code classpath:db/migration}) first, then the outbox's, shipped in
   * outbox-jdbc, with a history table of their own so that its versions never meet yours; it
   * baselines at 0 because the schema already holds your tables.
   */
  private static void migrate(DataSource dataSource, String schema) {
    Flyway.configure().dataSource(dataSource).schemas(schema).load().migrate(); // creates it
    Flyway.configure()
        .dataSource(dataSource)
        .schemas(schema)
        .locations(OutboxTables.migrationLocation(dataSource)) // classpath:db/outbox/postgresql
        .table("outbox_schema_history")
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }
}
