package dev.outbox.hibernate.testing.e2e;

import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.hibernate.OutboxSettings;
import dev.outbox.spi.EventPublisher;
import dev.outbox.testkit.RequiredServer;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A persistence unit on the local PostgreSQL (127.0.0.1:5432, database {@code test}, user {@code
 * postgres}) with the outbox integrated and tables of its own: {@code e2e_<name>_outbox} and {@code
 * e2e_<name>_dead_letters}, recreated empty at start, so that adapters' tests and
 * outbox-hibernate's tests never share an outbox table. The aggregates live in {@code
 * outbox_e2e_aggregates}, shared by all names; each run's ids start with {@code <name>-<run>-}, and
 * a start deletes the earlier runs' aggregates of its name.
 *
 * <pre>{@code
 * try (E2eDatabase db = E2eDatabase.start("kafka");
 *     Outbox outbox = db.outbox(publisher)) {
 *   outbox.start();
 *   EventWriter.Written written = db.writer("orders").write(10_000, 100, 8);
 *   ...
 * }
 * }</pre>
 */
public final class E2eDatabase implements AutoCloseable {

  private final AtomicInteger writers = new AtomicInteger();

  /** The JDBC URL of the local PostgreSQL. */
  public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,29}");
  private static final String SCHEMA_ACTION =
      "jakarta.persistence.schema-generation.database.action";

  private final String idPrefix;
  private final DataSource dataSource;
  private final OutboxOptions options;
  private final SessionFactory emf;

  private E2eDatabase(String idPrefix, DataSource dataSource, OutboxOptions options) {
    this.idPrefix = idPrefix;
    this.dataSource = dataSource;
    this.options = options;
    this.emf =
        new HibernatePersistenceConfiguration("outbox-e2e-" + idPrefix)
            .managedClasses(E2eAggregate.class)
            .property("hibernate.connection.datasource", dataSource)
            .property(SCHEMA_ACTION, "update")
            .property(OutboxSettings.OPTIONS, options)
            .createEntityManagerFactory();
  }

  /**
   * Starts the persistence unit with empty outbox tables. Aborts the calling test when PostgreSQL
   * is not running (fails it when {@code CI=true}).
   *
   * @param name names the tables: lower case letters, digits and {@code _}, for example the
   *     adapter's ("kafka")
   * @return the started database
   */
  public static E2eDatabase start(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name must match " + NAME + ", but was " + name);
    }
    RequiredServer.assumePostgres();
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(URL);
    dataSource.setConnectTimeout(3);
    OutboxOptions options = defaultOptions(name);
    execute(
        dataSource,
        "DROP VIEW IF EXISTS " + options.publishedView(),
        "DROP TABLE IF EXISTS " + options.outboxTable(),
        "DROP TABLE IF EXISTS " + options.headTable(),
        "DROP TABLE IF EXISTS " + options.deadLetterTable());
    byte[] run = new byte[3];
    new SecureRandom().nextBytes(run);
    E2eDatabase database =
        new E2eDatabase(name + "-" + HexFormat.of().formatHex(run), dataSource, options);
    database.execute("DELETE FROM outbox_e2e_aggregates WHERE starts_with(id, ?)", name + "-");
    return database;
  }

  /**
   * The outbox options of this unit: its tables, created at start, a short poll interval, fast
   * fixed retries and enough attempts to outlast a broker outage. Derive others with {@code
   * options().toBuilder()}, keeping the table names.
   *
   * @return the options
   */
  public OutboxOptions options() {
    return options;
  }

  /**
   * The entity manager factory, a Hibernate {@link SessionFactory}.
   *
   * @return the factory
   */
  public SessionFactory emf() {
    return emf;
  }

  /**
   * The unpooled data source of the unit.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * An outbox (processor, cleanup, dead letters) of this unit, not started.
   *
   * @param publisher the adapter's publisher, closed with the outbox
   * @return the outbox
   */
  public Outbox outbox(EventPublisher publisher) {
    return HibernateOutbox.create(emf, publisher, options);
  }

  /**
   * The same with options of the caller's; the table names must be those of {@link #options()}.
   *
   * @param publisher the adapter's publisher, closed with the outbox
   * @param options the engine's options
   * @return the outbox
   */
  public Outbox outbox(EventPublisher publisher, OutboxOptions options) {
    return HibernateOutbox.create(emf, publisher, options);
  }

  /**
   * A writer of events of the given aggregate type, with aggregate ids unique to this run and to
   * this writer, so that several writers of one run never write the same aggregate.
   *
   * @param aggregateType the aggregate type on the wire
   * @return the writer
   */
  public EventWriter writer(String aggregateType) {
    return new EventWriter(emf, aggregateType, idPrefix + "w" + writers.incrementAndGet());
  }

  /**
   * How many messages of the outbox table are delivered ({@code PUBLISHED}: at or before their
   * head's cursor) or waiting ({@code PENDING}: behind it), for reports while waiting.
   *
   * @param status {@code PENDING} or {@code PUBLISHED}
   * @return the count
   */
  public long countOutbox(String status) {
    String where =
        switch (status) {
          case "PUBLISHED" -> "m.seq <= h.delivered_seq";
          case "PENDING" -> "m.seq > h.delivered_seq";
          default ->
              throw new IllegalArgumentException(
                  "status must be PENDING or PUBLISHED, but was " + status);
        };
    return count(
        "SELECT count(*) FROM "
            + options.outboxTable()
            + " m JOIN "
            + options.headTable()
            + " h ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id"
            + " WHERE "
            + where,
        null);
  }

  /**
   * How many messages went to the dead letters.
   *
   * @return the count
   */
  public long countDeadLetters() {
    return count("SELECT count(*) FROM " + options.deadLetterTable(), null);
  }

  /**
   * The highest {@code attempts} of any head: how many failed attempts the message at the head of
   * its aggregate has counted.
   *
   * @return 0 when no head counts a failed attempt
   */
  public long maxAttempts() {
    return count("SELECT coalesce(max(attempts), 0) FROM " + options.headTable(), null);
  }

  /**
   * A message in the dead letters.
   *
   * @param aggregateType its aggregate type
   * @param aggregateId its aggregate id
   * @param seq its number within the aggregate, from 1
   * @param attempts the attempts it counted
   * @param lastError the error of its last attempt
   */
  public record DeadLetter(
      String aggregateType, String aggregateId, long seq, int attempts, String lastError) {}

  /**
   * The dead letters, by aggregate and seq.
   *
   * @return each with its attempts and last error
   */
  public List<DeadLetter> deadLetters() {
    String sql =
        "SELECT aggregate_type, aggregate_id, seq, attempts, last_error FROM "
            + options.deadLetterTable()
            + " ORDER BY aggregate_type, aggregate_id, seq";
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      List<DeadLetter> deadLetters = new ArrayList<>();
      while (result.next()) {
        deadLetters.add(
            new DeadLetter(
                result.getString(1),
                result.getString(2),
                result.getLong(3),
                result.getInt(4),
                result.getString(5)));
      }
      return deadLetters;
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** Closes the entity manager factory; the tables stay for inspection. */
  @Override
  public void close() {
    emf.close();
  }

  private static OutboxOptions defaultOptions(String name) {
    return OutboxOptions.builder()
        .outboxTable("e2e_" + name + "_outbox")
        .deadLetterTable("e2e_" + name + "_dead_letters")
        .createSchema(true)
        .batchSize(200)
        .pollInterval(Duration.ofMillis(100))
        .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(200)))
        .maxAttempts(1_000)
        .publishTimeout(Duration.ofSeconds(10))
        .leaseDuration(Duration.ofSeconds(30))
        .build();
  }

  private void execute(String sql, String parameter) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, parameter);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private long count(String sql, String parameter) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      if (parameter != null) {
        statement.setString(1, parameter);
      }
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static void execute(DataSource dataSource, String... sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String each : sql) {
        statement.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
