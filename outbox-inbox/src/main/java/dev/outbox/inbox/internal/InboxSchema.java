package dev.outbox.inbox.internal;

import dev.outbox.OutboxException;
import dev.outbox.inbox.InboxOptions;
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
 * Checks when the inbox is made that its two tables exist with the columns it uses, and creates
 * them first from the shipped migration when {@link InboxOptions#createSchema()} asks for it.
 */
final class InboxSchema {

  private final InboxDialect dialect;
  private final InboxOptions options;

  InboxSchema(InboxDialect dialect, InboxOptions options) {
    this.dialect = dialect;
    this.options = options;
  }

  /**
   * Creates the tables if asked, then checks them, in auto-commit mode.
   *
   * @throws OutboxException naming the table, the database and the migration to run
   */
  void prepare(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(true);
    try {
      if (options.createSchema()) {
        try (Statement statement = connection.createStatement()) {
          for (String sql : ddl()) {
            statement.execute(sql);
          }
        }
      }
      check(connection, options.positionsTable(), InboxDialect.POSITION_COLUMNS);
      check(connection, options.receivedIdsTable(), InboxDialect.ID_COLUMNS);
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** The shipped DDL with the configured table names, one statement per element. */
  List<String> ddl() {
    String script = readMigration();
    script = rename(script, InboxOptions.DEFAULT_POSITIONS_TABLE, options.positionsTable());
    script = rename(script, InboxOptions.DEFAULT_RECEIVED_IDS_TABLE, options.receivedIdsTable());
    StringBuilder code = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        code.append(line).append('\n');
      }
    }
    List<String> statements = new ArrayList<>();
    for (String statement : code.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.strip());
      }
    }
    return statements;
  }

  private void check(Connection connection, String table, String columns) {
    SQLException missing = query(connection, "1", table);
    if (missing != null) {
      throw failure(connection, table, "does not exist", missing);
    }
    SQLException lacking = query(connection, columns, table);
    if (lacking != null) {
      throw failure(connection, table, "lacks columns the inbox uses (" + columns + ")", lacking);
    }
  }

  private static SQLException query(Connection connection, String columns, String table) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
      return null;
    } catch (SQLException e) {
      return e;
    }
  }

  private OutboxException failure(
      Connection connection, String table, String problem, SQLException error) {
    return new OutboxException(
        "The inbox table '"
            + table
            + "' "
            + problem
            + " in the "
            + database(connection)
            + " ("
            + error.getMessage().strip()
            + "). Create the inbox tables with the migration shipped in outbox-inbox, classpath:"
            + dialect.migrationResource()
            + " (run it with Flyway, Liquibase or your SQL client, renaming the tables if yours are"
            + " not "
            + InboxOptions.DEFAULT_POSITIONS_TABLE
            + " and "
            + InboxOptions.DEFAULT_RECEIVED_IDS_TABLE
            + "), or set InboxOptions.builder().createSchema(true) to create them when the inbox"
            + " is made (for development)",
        error);
  }

  /** The database in words: product, catalog and schema, no URL. */
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

  private String readMigration() {
    String resource = dialect.migrationResource();
    try (InputStream in = InboxSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxException("Missing resource " + resource + " in outbox-inbox");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxException("Cannot read " + resource + " from outbox-inbox", e);
    }
  }

  /** Renames a table, and the indexes named after it ({@code ix_<table>_...}). */
  private static String rename(String script, String from, String to) {
    if (from.equals(to)) {
      return script;
    }
    String simple = to.substring(to.indexOf('.') + 1);
    String indexes =
        Pattern.compile("\\bix_" + from + "_")
            .matcher(script)
            .replaceAll(Matcher.quoteReplacement("ix_" + simple + '_'));
    return Pattern.compile("\\b" + from + "\\b")
        .matcher(indexes)
        .replaceAll(Matcher.quoteReplacement(to));
  }
}
