package dev.outbox.spring.boot;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxSchemaException;
import dev.outbox.jdbc.OutboxSchemaException.Problem;
import java.util.List;
import java.util.Set;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Turns the outbox's start-up schema check ({@link OutboxSchemaException}: the tables are missing
 * or lack columns), wherever it surfaces (building the entity manager factory with JPA, the {@code
 * JdbcOutbox} bean without it), into Spring Boot's failure report naming the tables, the database
 * and the Spring Boot ways out: {@code outbox.create-schema=true} in development, the shipped
 * migration in production.
 */
final class OutboxSchemaFailureAnalyzer extends AbstractFailureAnalyzer<OutboxSchemaException> {

  private static final String NL = System.lineSeparator();

  private final Environment environment;

  /**
   * An analyzer reading the application's {@code outbox.*} properties.
   *
   * @param environment the application's environment, or {@code null} before there is one
   */
  OutboxSchemaFailureAnalyzer(Environment environment) {
    this.environment = environment;
  }

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, OutboxSchemaException cause) {
    return new FailureAnalysis(description(cause), action(cause), cause);
  }

  private static String description(OutboxSchemaException cause) {
    List<String> tables = cause.tables();
    boolean one = tables.size() == 1;
    String names = names(tables);
    if (cause.problem() == Problem.MISSING_TABLES) {
      return "The outbox cannot start: the "
          + (one ? "table " + names + " does" : "tables " + names + " do")
          + " not exist in the "
          + cause.database()
          + ".";
    }
    return "The outbox cannot start: the "
        + (one ? "table " + names + " lacks" : "tables " + names + " lack")
        + " columns the outbox needs, in the "
        + cause.database()
        + " ("
        + databaseError(cause)
        + ").";
  }

  private String action(OutboxSchemaException cause) {
    String migration =
        "the migration shipped in outbox-jdbc, "
            + cause.migrationLocation()
            + " ("
            + cause.migrationResource().substring(cause.migrationResource().lastIndexOf('/') + 1)
            + ")";
    if (cause.problem() == Problem.MISSING_COLUMNS) {
      return "Migrate the outbox tables to the columns of "
          + migration
          + ": tables of an older outbox release, or of another application, have these names."
          + NL
          + "    - In development, drop them and set outbox.create-schema=true to create them"
          + " again at startup (it creates missing tables only, it never alters one)."
          + NL
          + "    - Or give the outbox tables of its own with outbox.outbox-table and"
          + " outbox.dead-letter-table.";
    }
    return "Create the outbox tables:"
        + NL
        + "    - in development, set outbox.create-schema=true: the outbox creates them at"
        + " startup;"
        + NL
        + "    - in production, run "
        + migration
        + " with Flyway or Liquibase. "
        + flywayAdvice(cause);
  }

  /** Why the outbox's own Flyway migration did not create the tables, and what to do about it. */
  private String flywayAdvice(OutboxSchemaException cause) {
    if (!ClassUtils.isPresent(
        "org.flywaydb.core.Flyway", OutboxSchemaFailureAnalyzer.class.getClassLoader())) {
      return "With Flyway on the classpath (org.flywaydb:flyway-core and your database's Flyway"
          + " module, such as flyway-database-postgresql) the outbox runs it by itself at startup,"
          + " with a history table of its own ("
          + OutboxFlywayAutoConfiguration.HISTORY_TABLE
          + "), for the default table names.";
    }
    if (environment != null
        && "false".equalsIgnoreCase(environment.getProperty("outbox.flyway.enabled"))) {
      return "The outbox does not run it by itself because outbox.flyway.enabled=false: remove"
          + " that property, or add the file to your own migrations.";
    }
    OutboxOptions defaults = OutboxOptions.defaults();
    Set<String> defaultNames =
        Set.of(defaults.outboxTable(), defaults.headTable(), defaults.deadLetterTable());
    if (!defaultNames.containsAll(cause.tables())) {
      return "The outbox runs it by itself only for the default table names ("
          + names(List.of(defaults.outboxTable(), defaults.headTable(), defaults.deadLetterTable()))
          + "); with yours, copy the file into your own migrations and rename the tables in it.";
    }
    return "Flyway is on the classpath, so the outbox ran it at startup with the history table "
        + OutboxFlywayAutoConfiguration.HISTORY_TABLE
        + ": if that table records it as applied while the outbox tables were dropped since,"
        + " drop "
        + OutboxFlywayAutoConfiguration.HISTORY_TABLE
        + " too so that it runs again.";
  }

  private static String databaseError(OutboxSchemaException cause) {
    Throwable error = cause.getCause();
    String message = error == null || error.getMessage() == null ? "" : error.getMessage().strip();
    int end = message.indexOf('\n');
    return end < 0 ? message : message.substring(0, end).strip();
  }

  /** {@code a}, {@code a and b}, {@code a, b and c}. */
  private static String names(List<String> tables) {
    if (tables.size() == 1) {
      return tables.get(0);
    }
    return String.join(", ", tables.subList(0, tables.size() - 1))
        + " and "
        + tables.get(tables.size() - 1);
  }
}
