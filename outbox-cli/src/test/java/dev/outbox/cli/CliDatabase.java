package dev.outbox.cli;

import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import dev.outbox.hibernate.testing.e2e.EventWriter;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real database with outbox tables of the CLI tests' own ({@code cli_outbox}, its heads, {@code
 * cli_dead_letters}), recreated empty, and a persistence unit that writes events into them.
 */
final class CliDatabase implements AutoCloseable {

  static final String OUTBOX_TABLE = "cli_outbox";
  static final String DEAD_LETTER_TABLE = "cli_dead_letters";

  /** The two servers the tool is tested on. */
  enum Server {
    POSTGRESQL(
        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
        "PostgreSQL at 127.0.0.1:5432 (database test, trust auth): start it with"
            + " 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'"),
    MARIADB(
        "jdbc:mariadb://127.0.0.1:3306/test?user=root",
        "MariaDB at 127.0.0.1:3306 (database test, root, empty password): start it with"
            + " 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd'");

    final String url;
    final String howToStart;

    Server(String url, String howToStart) {
      this.url = url;
      this.howToStart = howToStart;
    }
  }

  private final Server server;
  private final DataSource dataSource;
  private final OutboxOptions options;
  private final SessionFactory emf;
  private final OutboxStore store;
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger writers = new AtomicInteger();

  private CliDatabase(Server server) {
    this.server = server;
    this.dataSource = new DriverManagerDataSource(server.url, null, null, Duration.ofSeconds(3));
    this.options =
        OutboxOptions.builder()
            .outboxTable(OUTBOX_TABLE)
            .deadLetterTable(DEAD_LETTER_TABLE)
            .createSchema(true)
            .pollInterval(Duration.ofMillis(100))
            .build();
    dropTables();
    this.emf =
        new HibernatePersistenceConfiguration("outbox-cli-" + server)
            .managedClasses(E2eAggregate.class)
            .property("hibernate.connection.datasource", dataSource)
            .property("jakarta.persistence.schema-generation.database.action", "update")
            .property(OutboxSettings.OPTIONS, options)
            .createEntityManagerFactory();
    this.store = OutboxTables.store(dataSource, options);
  }

  /**
   * Starts on the server; skips the calling test when it is down (fails it when {@code CI=true}).
   */
  static CliDatabase start(Server server) {
    try (Connection ignored = DriverManager.getConnection(server.url)) {
      // reachable
    } catch (SQLException e) {
      String message = "Needs " + server.howToStart + " — not reachable: " + e.getMessage();
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " (CI=true: a missing server is a failure)");
      }
      Assumptions.abort(message);
    }
    return new CliDatabase(server);
  }

  String url() {
    return server.url;
  }

  /** The database, for tables of the tests' own (the inbox's). */
  DataSource dataSource() {
    return dataSource;
  }

  Server server() {
    return server;
  }

  OutboxOptions options() {
    return options;
  }

  SessionFactory emf() {
    return emf;
  }

  /** The store on the tables, as the application's outbox sees them. */
  OutboxStore store() {
    return store;
  }

  /** A writer of events of an aggregate type, its ids unique to this run. */
  EventWriter writer(String aggregateType) {
    return new EventWriter(
            emf, aggregateType, aggregateType + "-" + run + "-" + writers.incrementAndGet())
        .eventsPerTransaction(1);
  }

  /** A command line: the words given, then the options that find these tables. */
  String[] args(String... command) {
    return CliRun.args(
        command,
        "--url",
        url(),
        "--outbox-table",
        OUTBOX_TABLE,
        "--dead-letter-table",
        DEAD_LETTER_TABLE);
  }

  /** Empties the outbox tables. */
  void clear() {
    execute(
        "DELETE FROM " + options.outboxTable(),
        "DELETE FROM " + options.headTable(),
        "DELETE FROM " + options.deadLetterTable());
  }

  private void dropTables() {
    OutboxOptions names = options;
    execute(
        "DROP VIEW IF EXISTS " + names.publishedView(),
        "DROP TABLE IF EXISTS " + names.outboxTable(),
        "DROP TABLE IF EXISTS " + names.headTable(),
        "DROP TABLE IF EXISTS " + names.deadLetterTable());
  }

  void execute(String... statements) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    emf.close();
  }
}
