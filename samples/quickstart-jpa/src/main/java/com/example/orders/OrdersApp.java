package com.example.orders;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxModule;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.rabbitmq.RabbitMqOutboxModule;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The quick start: migrates the database, starts the outbox, places one order in a JPA
 * transaction, and prints its {@code order.placed} event as a consumer receives it from RabbitMQ.
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

      OutboxModule outboxModule = new OutboxModule(OutboxOptions.defaults());
      Map<String, Object> jpa = new HashMap<>(outboxModule.persistenceProperties());
      jpa.put("jakarta.persistence.nonJtaDataSource", dataSource); // the pool, not Hibernate's own
      try (EntityManagerFactory emf = Persistence.createEntityManagerFactory("orders", jpa)) {
        Injector injector =
            Guice.createInjector(
                outboxModule,
                new RabbitMqOutboxModule(
                    RabbitMqPublisherOptions.builder().uri(amqpUri).exchange(EXCHANGE).build()),
                binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
        try (Outbox outbox = injector.getInstance(Outbox.class)) {
          outbox.start(); // the processor, and the cleanup of delivered messages

          Order order = Order.place(new BigDecimal("12.50"));
          emf.runInTransaction(em -> em.persist(order)); // the order and its event, one commit

          return events.await(order.id().toString(), Duration.ofSeconds(30));
        } // close(): the batch in flight finishes, the publisher closes
      }
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
