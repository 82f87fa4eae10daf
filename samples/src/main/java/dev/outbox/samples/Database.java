package dev.outbox.samples;

import dev.outbox.OutboxOptions;
import dev.outbox.samples.embedded.EmbeddedDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * The demo's PostgreSQL: the embedded one by default, or the one {@code --jdbc-url} names. The
 * demo's tables ({@code sample_orders}, {@code sample_order_lines}, {@code sample_outbox_*}) are
 * dropped and created afresh at every start.
 */
final class Database implements AutoCloseable {

  private static final String SCHEMA_ACTION =
      "jakarta.persistence.schema-generation.database.action";

  private final String jdbcUrl;
  private final EmbeddedDatabase embedded;

  private Database(String jdbcUrl, EmbeddedDatabase embedded) {
    this.jdbcUrl = jdbcUrl;
    this.embedded = embedded;
  }

  /**
   * Checks the URL and connects once.
   *
   * @param jdbcUrl a PostgreSQL JDBC URL
   * @return the database
   * @throws SetupException when the URL is malformed or nothing answers there
   */
  static Database connect(String jdbcUrl) {
    if (!jdbcUrl.startsWith("jdbc:postgresql:")
        || org.postgresql.Driver.parseURL(jdbcUrl, null) == null) {
      throw new SetupException(
          "--jdbc-url must be a PostgreSQL JDBC URL like"
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres, but was '"
              + Redaction.redact(jdbcUrl)
              + "'");
    }
    Database database = new Database(jdbcUrl, null);
    database.execute("SELECT 1");
    return database;
  }

  /**
   * Starts the embedded PostgreSQL.
   *
   * @return the database
   */
  static Database embedded() {
    EmbeddedDatabase embedded = EmbeddedDatabase.start();
    return new Database(embedded.jdbcUrl(), embedded);
  }

  String description() {
    return embedded != null
        ? "embedded PostgreSQL at " + jdbcUrl
        : "PostgreSQL at " + Redaction.redact(jdbcUrl);
  }

  /**
   * Drops the outbox tables of earlier runs, so that their leftovers are not published into this
   * run; {@code createSchema} creates them again.
   */
  void dropOutboxTables(OutboxOptions options) {
    execute(
        "DROP VIEW IF EXISTS " + options.publishedView(),
        "DROP TABLE IF EXISTS " + options.outboxTable(),
        "DROP TABLE IF EXISTS " + options.headTable(),
        "DROP TABLE IF EXISTS " + options.deadLetterTable());
  }

  /**
   * The persistence unit of the orders, with the outbox integrated (outbox-hibernate is on the
   * class path; the options come with {@code outboxProperties}).
   */
  EntityManagerFactory createEntityManagerFactory(Map<String, Object> outboxProperties, int pool) {
    HibernatePersistenceConfiguration configuration =
        new HibernatePersistenceConfiguration("orders")
            .managedClasses(Order.class, OrderLine.class)
            .jdbcUrl(jdbcUrl)
            .jdbcPoolSize(pool)
            .property(SCHEMA_ACTION, "drop-and-create");
    outboxProperties.forEach(configuration::property);
    return configuration.createEntityManagerFactory();
  }

  private void execute(String... sql) {
    DriverManager.setLoginTimeout(5);
    try (Connection connection = DriverManager.getConnection(jdbcUrl);
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new SetupException(
          "PostgreSQL is not usable at "
              + Redaction.redact(jdbcUrl)
              + " ("
              + SetupException.describe(e)
              + "): start it, fix --jdbc-url, or omit it to use the embedded PostgreSQL");
    }
  }

  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }
}
