package dev.outbox.jdbc.internal;

import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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
          + " headers, occurred_at, created_at";
  static final String HEAD_COLUMNS =
      "aggregate_type, aggregate_id, write_seq, delivered_seq, available_at, claimed_by,"
          + " lease_token, attempts, last_error, held, due_at";
  static final String DEAD_LETTER_COLUMNS =
      "id, aggregate_type, aggregate_id, seq, event_type, content_type, payload, headers,"
          + " occurred_at, created_at, attempts, last_error, dead_lettered_at";

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
   * @throws OutboxException naming the missing table or columns and the migration to run
   */
  public void prepare(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(true);
    try {
      if (options.createSchema()) {
        create(connection);
      }
      check(connection, options.outboxTable(), OUTBOX_COLUMNS);
      check(connection, options.headTable(), HEAD_COLUMNS);
      check(connection, options.deadLetterTable(), DEAD_LETTER_COLUMNS);
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** The shipped DDL with the configured table names, one statement per element. */
  List<String> ddl() {
    String script = readMigration();
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

  private void check(Connection connection, String table, String columns) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException missing) {
      throw new OutboxException(
          "The outbox table '"
              + table
              + "' does not exist ("
              + missing.getMessage().strip()
              + "). Create it with the migration shipped in outbox-hibernate, classpath:"
              + dialect.migrationResource()
              + " (run it with Flyway, Liquibase or your SQL client), or set"
              + " OutboxOptions.builder().createSchema(true) to create it at start in development.",
          missing);
    }
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException wrong) {
      throw new OutboxException(
          "The outbox table '"
              + table
              + "' lacks columns the outbox needs ("
              + wrong.getMessage().strip()
              + "). Compare it with classpath:"
              + dialect.migrationResource()
              + " and migrate it.",
          wrong);
    }
  }

  private String readMigration() {
    String resource = dialect.migrationResource();
    try (InputStream in = SchemaManager.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxException("Missing resource " + resource + " in outbox-hibernate");
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
