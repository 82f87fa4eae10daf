package dev.outbox.samples.payments;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The application's connection pool on PostgreSQL (HikariCP): the {@link DataSource} the outbox and
 * the service share. Checked at once: a URL that is not PostgreSQL's or a server that does not
 * answer fails the start with one line saying what to do.
 */
public final class PaymentsDatabase implements AutoCloseable {

  private final String jdbcUrl;
  private final HikariDataSource pool;

  private PaymentsDatabase(String jdbcUrl, HikariDataSource pool) {
    this.jdbcUrl = jdbcUrl;
    this.pool = pool;
  }

  /**
   * Opens the pool and connects once.
   *
   * @param jdbcUrl a PostgreSQL JDBC URL
   * @param size the pool's size
   * @return the database
   * @throws SetupException when the URL is not a PostgreSQL one or nothing answers there
   */
  public static PaymentsDatabase open(String jdbcUrl, int size) {
    if (!jdbcUrl.startsWith("jdbc:postgresql:")
        || org.postgresql.Driver.parseURL(jdbcUrl, null) == null) {
      throw new SetupException(
          "--jdbc-url must be a PostgreSQL JDBC URL like"
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres, but was '"
              + SetupException.redact(jdbcUrl)
              + "'");
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(5_000);
    config.setPoolName("jdbc-payments");
    try {
      return new PaymentsDatabase(jdbcUrl, new HikariDataSource(config));
    } catch (RuntimeException e) {
      throw new SetupException(
          "PostgreSQL is not usable at "
              + SetupException.redact(jdbcUrl)
              + " ("
              + SetupException.describe(e)
              + "): start it, or pass --jdbc-url");
    }
  }

  /**
   * The pool.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return pool;
  }

  /**
   * Where it is, for the demo's output.
   *
   * @return the URL without the password
   */
  public String description() {
    return "PostgreSQL at " + SetupException.redact(jdbcUrl);
  }

  /** Closes the pool. */
  @Override
  public void close() {
    pool.close();
  }
}
