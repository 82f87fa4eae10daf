package dev.outbox.jdbc.internal;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxSchemaException;
import dev.outbox.jdbc.OutboxSchemaException.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks at start that the outbox tables (messages, heads, dead letters) exist with the expected
 * columns, and creates them and the published view from the shipped migration file when {@link
 * OutboxOptions#createSchema()} asks for it.
 */
public final class SchemaManager {

  static final String OUTBOX_COLUMNS =
      "id, position, aggregate_type, aggregate_id, seq, event_type, content_type, payload,"
          + " headers, occurred_at, created_at, epoch";
  static final String HEAD_COLUMNS =
      "aggregate_type, aggregate_id, write_seq, delivered_seq, available_at, claimed_by,"
          + " lease_token, attempts, last_error, held, due_at, epoch, published_seq";
  static final String DEAD_LETTER_COLUMNS =
      "id, aggregate_type, aggregate_id, seq, event_type, content_type, payload, headers,"
          + " occurred_at, created_at, attempts, last_error, dead_lettered_at, epoch";

  private final Dialect dialect;
  private final OutboxOptions options;

  /**
   * The schema of the tables the options name, on the database of a dialect.
   *
   * @param dialect the database
   * @param options the table names, and whether to create the tables
   */
  public SchemaManager(Dialect dialect, OutboxOptions options) {
    this.dialect = dialect;
    this.options = options;
  }

  /**
   * Creates the tables when the options ask for it, and checks that they exist with the expected
   * columns.
   *
   * @param connection a connection to the database
   * @throws OutboxSchemaException naming the missing tables or columns and the migration to run
   */
  public void prepare(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(true);
    try {
      if (options.createSchema()) {
        create(connection);
      }
      check(connection);
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** The shipped DDL with the configured table names, one statement per element. */
  List<String> ddl() {
    StringBuilder all = new StringBuilder();
    for (String resource : dialect.migrationResources()) {
      all.append(readMigration(resource)).append('\n');
    }
    String script = all.toString();
    OutboxOptions defaults = OutboxOptions.defaults();
    script = rename(script, defaults.headTable(), options.headTable());
    script = rename(script, defaults.publishedView(), options.publishedView());
    script = rename(script, OutboxOptions.DEFAULT_OUTBOX_TABLE, options.outboxTable());
    script = rename(script, OutboxOptions.DEFAULT_DEAD_LETTER_TABLE, options.deadLetterTable());
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        current.append(line).append('\n');
      }
    }
    for (String statement : current.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }

  private void create(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : ddl()) {
        statement.execute(sql);
      }
    }
  }

  /**
   * Checks the tables: first that each exists, then that the existing ones have the columns.
   * Reports every table at fault at once, so that a fresh database names all three.
   */
  private void check(Connection connection) {
    Map<String, String> tables = new LinkedHashMap<>();
    tables.put(options.outboxTable(), OUTBOX_COLUMNS);
    tables.put(options.headTable(), HEAD_COLUMNS);
    tables.put(options.deadLetterTable(), DEAD_LETTER_COLUMNS);
    Map<String, SQLException> missing = faults(connection, tables, columns -> "1");
    if (!missing.isEmpty()) {
      throw failure(connection, Problem.MISSING_TABLES, missing);
    }
    Map<String, SQLException> lacking = faults(connection, tables, columns -> columns);
    if (!lacking.isEmpty()) {
      throw failure(connection, Problem.MISSING_COLUMNS, lacking);
    }
  }

  /** The tables whose query of the selected columns fails, with the database's error. */
  private static Map<String, SQLException> faults(
      Connection connection, Map<String, String> tables, UnaryOperator<String> selected) {
    Map<String, SQLException> faults = new LinkedHashMap<>();
    tables.forEach(
        (table, columns) ->
            query(connection, selected.apply(columns), table).ifPresent(e -> faults.put(table, e)));
    return faults;
  }

  /** Selects nothing from the table; the database's error when that fails. */
  private static Optional<SQLException> query(Connection connection, String columns, String table) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(e);
    }
  }

  private OutboxSchemaException failure(
      Connection connection, Problem problem, Map<String, SQLException> faults) {
    List<String> tables = List.copyOf(faults.keySet());
    String first = tables.get(0);
    SQLException error = faults.get(first);
    String database = database(connection);
    String others = others(problem, tables.subList(1, tables.size()));
    String resource = dialect.migrationResource();
    String migrations = dialect.migrationWords();
    String them = tables.size() == 1 ? "it" : "them";
    String message =
        problem == Problem.MISSING_TABLES
            ? "The outbox table '"
                + first
                + "' does not exist in the "
                + database
                + " ("
                + error.getMessage().strip()
                + ")."
                + others
                + " Create "
                + them
                + " with the migrations shipped in outbox-jdbc, "
                + migrations
                + " (run them with Flyway, Liquibase or your SQL client), or set"
                + " OutboxOptions.builder().createSchema(true) to create "
                + them
                + " at start in development."
            : "The outbox table '"
                + first
                + "' in the "
                + database
                + " lacks columns the outbox needs ("
                + error.getMessage().strip()
                + ")."
                + others
                + " Compare "
                + them
                + " with "
                + migrations
                + " and migrate "
                + them
                + ".";
    OutboxSchemaException failure =
        new OutboxSchemaException(message, problem, tables, database, resource, error);
    faults.values().stream().filter(e -> e != error).forEach(failure::addSuppressed);
    return failure;
  }

  /** The sentence naming the other tables at fault, or nothing. */
  private static String others(Problem problem, List<String> tables) {
    if (tables.isEmpty()) {
      return "";
    }
    boolean one = tables.size() == 1;
    return (one ? " The table '" : " The tables '")
        + String.join("' and '", tables)
        + "' "
        + (problem == Problem.MISSING_TABLES
            ? (one ? "is missing too." : "are missing too.")
            : (one ? "lacks columns too." : "lack columns too."));
  }

  /** The database in words, from the connection: product, catalog and schema, no URL. */
  private static String database(Connection connection) {
    StringBuilder words = new StringBuilder();
    try {
      words.append(connection.getMetaData().getDatabaseProductName()).append(" database");
      String catalog = connection.getCatalog();
      if (catalog != null && !catalog.isBlank()) {
        words.append(" '").append(catalog).append('\'');
      }
      String schema = connection.getSchema();
      if (schema != null && !schema.isBlank()) {
        words.append(", schema '").append(schema).append('\'');
      }
    } catch (SQLException | AbstractMethodError e) {
      // A driver without the metadata: name what is known.
    }
    return words.length() == 0 ? "database" : words.toString();
  }

  private static String readMigration(String resource) {
    try (InputStream in = SchemaManager.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxException("Missing resource " + resource + " in outbox-jdbc");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxException("Cannot read " + resource, e);
    }
  }

  /** Renames a table and the indexes named after it ({@code ix_<table>_...}). */
  private static String rename(String script, String from, String to) {
    if (from.equals(to)) {
      return script;
    }
    String simple = to.substring(to.indexOf('.') + 1);
    String renamedIndexes =
        Pattern.compile("\\b(ix|uq)_" + from + "_")
            .matcher(script)
            .replaceAll(match -> Matcher.quoteReplacement(match.group(1) + '_' + simple + '_'));
    return Pattern.compile("\\b" + from + "\\b")
        .matcher(renamedIndexes)
        .replaceAll(Matcher.quoteReplacement(to));
  }
}
