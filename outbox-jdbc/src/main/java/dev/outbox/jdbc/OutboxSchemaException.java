package dev.outbox.jdbc;

import dev.outbox.OutboxException;
import java.util.List;
import java.util.Objects;

/**
 * The outbox tables are missing, or lack columns the outbox needs, so the outbox cannot start: what
 * the start-up check found when building a {@link JdbcOutbox} (and the persistence unit of {@code
 * outbox-hibernate}, which builds one). The message says which table and how to create it; the
 * accessors give the same facts to integrations that word their own advice, such as Spring Boot's
 * failure report.
 */
public class OutboxSchemaException extends OutboxException {

  private static final long serialVersionUID = 1L;

  /** What is wrong with the tables. */
  public enum Problem {
    /** The tables do not exist. */
    MISSING_TABLES,
    /** The tables exist but lack columns the outbox reads or writes: an older or foreign schema. */
    MISSING_COLUMNS
  }

  private final Problem problem;
  private final List<String> tables;
  private final String database;
  private final String migrationResource;

  /**
   * A schema problem.
   *
   * @param message what is wrong and how to fix it
   * @param problem what is wrong with the tables
   * @param tables the tables at fault, as configured, at least one
   * @param database the database checked, in words (product, catalog, schema), without credentials
   * @param migrationResource the classpath resource of the shipped migration for this database, for
   *     example {@code db/outbox/postgresql/V1__outbox_tables.sql}
   * @param cause the database's error
   */
  public OutboxSchemaException(
      String message,
      Problem problem,
      List<String> tables,
      String database,
      String migrationResource,
      Throwable cause) {
    super(message, cause);
    this.problem = Objects.requireNonNull(problem, "problem");
    this.tables = List.copyOf(tables);
    this.database = Objects.requireNonNull(database, "database");
    this.migrationResource = Objects.requireNonNull(migrationResource, "migrationResource");
    if (this.tables.isEmpty()) {
      throw new IllegalArgumentException("tables must name at least one table");
    }
  }

  /**
   * What is wrong with the tables.
   *
   * @return the problem
   */
  public Problem problem() {
    return problem;
  }

  /**
   * The tables at fault, as configured ({@code outbox_messages}, {@code orders_outbox_heads}, ...).
   *
   * @return one or more table names
   */
  public List<String> tables() {
    return tables;
  }

  /**
   * The database checked, in words: for example {@code PostgreSQL database 'shop', schema
   * 'public'}. Never contains the URL or credentials.
   *
   * @return the database
   */
  public String database() {
    return database;
  }

  /**
   * The classpath resource of the migration shipped for this database, which creates the tables
   * with their default names.
   *
   * @return for example {@code db/outbox/postgresql/V1__outbox_tables.sql}
   */
  public String migrationResource() {
    return migrationResource;
  }

  /**
   * The Flyway location of the shipped migration, as {@link JdbcOutbox#migrationLocation()} gives
   * it.
   *
   * @return for example {@code classpath:db/outbox/postgresql}
   */
  public String migrationLocation() {
    return "classpath:" + migrationResource.substring(0, migrationResource.lastIndexOf('/'));
  }
}
