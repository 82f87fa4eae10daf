package dev.outbox.benchmarks.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.OutboxSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * The local PostgreSQL (127.0.0.1:5432, database {@code test}, user {@code postgres}) with the
 * benchmarks' own tables, all prefixed {@code bench_} and dropped at start: the outbox {@value
 * #OUTBOX} with its heads table and published view, its dead letters, the aggregates, and the DB
 * ceiling's table.
 */
public final class BenchDatabase implements AutoCloseable {

  /** The JDBC URL. */
  public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** The outbox table. */
  public static final String OUTBOX = "bench_outbox";

  /** The dead-letter table. */
  public static final String DEAD_LETTERS = "bench_dead_letters";

  /** The outbox's head table (one row per aggregate), named after {@value #OUTBOX}. */
  public static final String HEADS = tables().headTable();

  /** The outbox's view of delivered messages, named after {@value #OUTBOX}. */
  public static final String PUBLISHED = tables().publishedView();

  /** A diagnostic override of the processor's batch size (default 100). */
  public static final String BATCH_SIZE_PROPERTY = "bench.batchSize";

  /** The DB ceiling's table: a version 1 outbox table of its own ({@link DbCeiling}). */
  public static final String CEILING = "bench_ceiling_outbox";

  private static final String AGGREGATES = "bench_aggregates";

  /** Connections in the pool: the latency run's writers, the processor, cleanup and spare. */
  private static final int POOL_SIZE = 20;

  private final HikariDataSource dataSource;
  private final OutboxOptions options;
  private final SessionFactory emf;

  private BenchDatabase(HikariDataSource dataSource, OutboxOptions options, SessionFactory emf) {
    this.dataSource = dataSource;
    this.options = options;
    this.emf = emf;
  }

  /**
   * Connects, drops the benchmarks' tables when {@code fresh}, and starts the persistence unit,
   * which creates the outbox tables.
   *
   * @param fresh drop every {@code bench_} table first (false in the child JVM, which drains what
   *     the parent wrote)
   * @return the database
   */
  public static BenchDatabase open(boolean fresh) {
    return open(fresh, POOL_SIZE);
  }

  /**
   * The same with a pool of another size.
   *
   * @param fresh drop every {@code bench_} table first
   * @param poolSize connections in the pool
   * @return the database
   */
  public static BenchDatabase open(boolean fresh, int poolSize) {
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(URL);
    pool.setMaximumPoolSize(poolSize);
    pool.setConnectionTimeout(5_000);
    pool.setPoolName("bench");
    HikariDataSource dataSource = new HikariDataSource(pool);
    OutboxOptions.Builder builder = tables().toBuilder().createSchema(true);
    String batchSize = System.getProperty(BATCH_SIZE_PROPERTY);
    if (batchSize != null) {
      builder.batchSize(Integer.parseInt(batchSize));
    }
    OutboxOptions options = builder.build();
    if (fresh) {
      execute(
          dataSource,
          "DROP VIEW IF EXISTS " + PUBLISHED,
          "DROP TABLE IF EXISTS " + CEILING,
          "DROP TABLE IF EXISTS " + OUTBOX,
          "DROP TABLE IF EXISTS " + HEADS,
          "DROP TABLE IF EXISTS " + DEAD_LETTERS,
          "DROP TABLE IF EXISTS " + AGGREGATES);
    }
    SessionFactory emf =
        new HibernatePersistenceConfiguration("outbox-benchmarks")
            .managedClasses(BenchAggregate.class)
            .property("hibernate.connection.datasource", dataSource)
            .property("jakarta.persistence.schema-generation.database.action", "update")
            .property(OutboxSettings.OPTIONS, options)
            .createEntityManagerFactory();
    return new BenchDatabase(dataSource, options, emf);
  }

  /** The benchmarks' table names, otherwise the default options. */
  private static OutboxOptions tables() {
    return OutboxOptions.builder().outboxTable(OUTBOX).deadLetterTable(DEAD_LETTERS).build();
  }

  /**
   * The options the unit was built with (its tables); derive the engine's with {@code toBuilder()}.
   *
   * @return the options, otherwise the defaults
   */
  public OutboxOptions options() {
    return options;
  }

  /**
   * The entity manager factory.
   *
   * @return the factory
   */
  public SessionFactory emf() {
    return emf;
  }

  /**
   * The pooled data source.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * The server's {@code fsync} setting.
   *
   * @return {@code on} or {@code off}
   */
  public String fsync() {
    return text("SHOW fsync") + ", synchronous_commit=" + text("SHOW synchronous_commit");
  }

  /**
   * The server's version line.
   *
   * @return for example {@code PostgreSQL 15.14 ...}
   */
  public String version() {
    return text("SELECT version()");
  }

  /**
   * Runs statements, each in its own transaction.
   *
   * @param sql the statements
   */
  public void execute(String... sql) {
    execute(dataSource, sql);
  }

  /** Empties the outbox tables (messages, heads, dead letters) and the aggregates. */
  public void truncate() {
    execute("TRUNCATE " + OUTBOX + ", " + HEADS + ", " + DEAD_LETTERS + ", " + AGGREGATES);
  }

  /**
   * The messages not yet delivered: the sum over the heads of {@code write_seq - delivered_seq}.
   *
   * @return the count
   */
  public long pending() {
    return count(
        "SELECT coalesce(sum(write_seq - delivered_seq), 0) FROM "
            + HEADS
            + " WHERE write_seq > delivered_seq");
  }

  /**
   * A count.
   *
   * @param sql a query returning one number
   * @return the number
   */
  public long count(String sql) {
    return Long.parseLong(text(sql));
  }

  /**
   * What the heads say about the messages not yet delivered, for a failure message: the pending
   * heads and messages, the heads leased right now (by whom, until when, on the database clock),
   * those waiting for a retry (attempts, newest error) and those held on a dead letter.
   *
   * @return one line
   */
  public String pendingSummary() {
    String leased = "claimed_by IS NOT NULL AND available_at > now()";
    return text(
        "SELECT 'pending heads ' || count(*) FILTER (WHERE write_seq > delivered_seq)"
            + " || ' (' || coalesce(sum(write_seq - delivered_seq), 0) || ' messages) of '"
            + " || count(*) || '; leased ' || count(*) FILTER (WHERE "
            + leased
            + ") || ' by ' || coalesce(string_agg(DISTINCT claimed_by, ',') FILTER (WHERE "
            + leased
            + "), '-') || ' until<=' || coalesce((max(available_at) FILTER (WHERE "
            + leased
            + "))::text, '-') || '; with attempts ' || count(*) FILTER (WHERE attempts > 0)"
            + " || ' (attempts<=' || coalesce(max(attempts), 0) || ', error='"
            + " || coalesce(max(last_error), '-') || '); held ' || count(*) FILTER (WHERE held)"
            + " || '; now=' || now()::text FROM "
            + HEADS);
  }

  /**
   * Runs a query that returns one text.
   *
   * @param sql a query returning one value
   * @return the value, {@code null} when it is NULL
   */
  public String text(String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * Runs one statement with parameters.
   *
   * @param sql the statement
   * @param parameters its parameters
   * @return the update count
   */
  public int update(String sql, Object... parameters) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    emf.close();
    dataSource.close();
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
