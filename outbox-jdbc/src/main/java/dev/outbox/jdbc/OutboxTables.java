package dev.outbox.jdbc;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.internal.Dialect;
import dev.outbox.jdbc.internal.JdbcOutboxStore;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The outbox tables of a database reached through a {@link DataSource}, without sending or
 * delivering: for tools that watch and repair an outbox from outside the application, such as
 * {@code outbox-cli}. The store reads and changes the same rows as the application's outbox, with
 * the same statements: its counts are the ones {@code Outbox.health()} reports, and a dead letter
 * it replays is delivered by the running processors. It runs no processor and no cleanup itself.
 *
 * <pre>{@code
 * OutboxStore store = OutboxTables.store(dataSource, OutboxOptions.builder().vacuumThreshold(0).build());
 * OutboxStats stats = store.stats();
 * }</pre>
 */
public final class OutboxTables {

  private OutboxTables() {}

  /**
   * The store on a data source. Connects once to learn which database it is.
   *
   * @param dataSource the database with the outbox tables
   * @param options the table names (and the vacuum threshold; 0 for a tool that should never
   *     vacuum)
   * @return the store
   * @throws OutboxException when the database cannot be reached or is not one the outbox supports
   */
  public static OutboxStore store(DataSource dataSource, OutboxOptions options) {
    Objects.requireNonNull(options, "options");
    return new JdbcOutboxStore(dataSource, dialect(dataSource, options), options);
  }

  /**
   * The Flyway location of the migration shipped for the database, for example {@code
   * classpath:db/outbox/postgresql}. Connects once to learn which database it is.
   *
   * @param dataSource the database
   * @return the location
   * @throws OutboxException when the database cannot be reached or is not one the outbox supports
   */
  public static String migrationLocation(DataSource dataSource) {
    return location(dialect(dataSource, OutboxOptions.defaults()));
  }

  static String location(Dialect dialect) {
    String resource = dialect.migrationResource();
    return "classpath:" + resource.substring(0, resource.lastIndexOf('/'));
  }

  private static Dialect dialect(DataSource dataSource, OutboxOptions options) {
    Objects.requireNonNull(dataSource, "dataSource");
    try (Connection connection = dataSource.getConnection()) {
      return Dialect.of(connection.getMetaData().getDatabaseProductName(), options);
    } catch (SQLException e) {
      throw new OutboxException("Cannot connect to the outbox database: " + e.getMessage(), e);
    }
  }
}
