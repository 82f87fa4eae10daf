package dev.outbox.jdbc.testing;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The databases the integration tests run on. PostgreSQL and MariaDB are real servers on 127.0.0.1;
 * a test whose server is not reachable is skipped with a message saying what to start, except when
 * {@code CI=true}, where it fails.
 */
public enum TestDatabase {
  POSTGRESQL(
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
      "PostgreSQL at 127.0.0.1:5432 (database test, trust auth): start it with"
          + " 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'"),
  MARIADB(
      "jdbc:mariadb://127.0.0.1:3306/test?user=root",
      "MariaDB at 127.0.0.1:3306 (database test, root, empty password): start it with"
          + " 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd'"),
  H2("jdbc:h2:mem:outbox;DB_CLOSE_DELAY=-1", "H2 in memory");

  private final String url;
  private final String howToStart;

  TestDatabase(String url, String howToStart) {
    this.url = url;
    this.howToStart = howToStart;
  }

  /** The JDBC URL. */
  public String url() {
    return url;
  }

  /** A new unpooled data source. */
  public DataSource dataSource() {
    switch (this) {
      case POSTGRESQL -> {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        ds.setConnectTimeout(3);
        return ds;
      }
      case MARIADB -> {
        try {
          return new MariaDbDataSource(url + "&connectTimeout=3000");
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }
      default -> {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(url);
        return ds;
      }
    }
  }

  /**
   * Skips the calling test when the server is down (fails it when {@code CI=true}), naming what to
   * start.
   */
  public void assumeReachable() {
    try (Connection ignored = dataSource().getConnection()) {
      // reachable
    } catch (SQLException e) {
      String message = "Needs " + howToStart + " — not reachable: " + e.getMessage();
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " (CI=true: a missing server is a failure)");
      }
      Assumptions.abort(message);
    }
  }
}
