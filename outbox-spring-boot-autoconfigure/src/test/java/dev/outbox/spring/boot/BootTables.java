package dev.outbox.spring.boot;

import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.springframework.test.context.DynamicPropertyRegistry;

/** The local PostgreSQL and outbox tables of each test class's own, dropped before it starts. */
final class BootTables {

  static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

  private BootTables() {}

  /** Drops the outbox tables named so, with their head table and published view. */
  static void drop(String outboxTable, String deadLetterTable) {
    OutboxOptions options =
        OutboxOptions.builder().outboxTable(outboxTable).deadLetterTable(deadLetterTable).build();
    try (Connection connection = DriverManager.getConnection(URL, "postgres", "");
        Statement statement = connection.createStatement()) {
      statement.execute("DROP VIEW IF EXISTS " + options.publishedView());
      statement.execute("DROP TABLE IF EXISTS " + options.outboxTable());
      statement.execute("DROP TABLE IF EXISTS " + options.headTable());
      statement.execute("DROP TABLE IF EXISTS " + options.deadLetterTable());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The data source and schema handling of every test application, as properties to add to. */
  static Map<String, Object> database() {
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.datasource.url", URL);
    properties.put("spring.datasource.username", "postgres");
    properties.put("spring.jpa.hibernate.ddl-auto", "update");
    properties.put("spring.jpa.open-in-view", "false");
    return properties;
  }

  /** The data source, the schema and the outbox's tables and timings for a test application. */
  static void register(DynamicPropertyRegistry registry, String outboxTable, String deadLetters) {
    database().forEach((key, value) -> registry.add(key, () -> value));
    registry.add("outbox.outbox-table", () -> outboxTable);
    registry.add("outbox.dead-letter-table", () -> deadLetters);
    registry.add("outbox.create-schema", () -> "true");
    registry.add("outbox.poll-interval", () -> "100ms");
    registry.add("management.endpoints.web.exposure.include", () -> "health,outbox");
    registry.add("management.endpoint.health.show-details", () -> "always");
    registry.add("management.endpoint.outbox.access", () -> "unrestricted");
  }
}
