package dev.outbox.cli;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Where the outbox tables are: the database's JDBC URL and login, and the table names when they are
 * not the defaults. Every command mixes these in.
 */
final class DatabaseOptions {

  private final Context context;

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  @Option(
      names = "--url",
      paramLabel = "JDBC-URL",
      defaultValue = "${env:OUTBOX_JDBC_URL}",
      description =
          "JDBC URL of the database with the outbox tables, e.g."
              + " jdbc:postgresql://127.0.0.1:5432/orders or jdbc:mariadb://127.0.0.1:3306/orders."
              + " Default: environment variable OUTBOX_JDBC_URL.")
  private String url;

  @Option(
      names = "--user",
      paramLabel = "USER",
      defaultValue = "${env:OUTBOX_JDBC_USER}",
      description = "Database user. Default: environment variable OUTBOX_JDBC_USER.")
  private String user;

  @Option(
      names = "--password-env",
      paramLabel = "VARIABLE",
      description =
          "Name of the environment variable that holds the password (never the password itself,"
              + " which would stay in the shell history and the process list).")
  private String passwordEnv;

  @Option(
      names = "--outbox-table",
      paramLabel = "TABLE",
      defaultValue = "outbox_messages",
      description =
          "The outbox table, as in OutboxOptions.outboxTable; the head table is named from it."
              + " Default: ${DEFAULT-VALUE}.")
  private String outboxTable;

  @Option(
      names = "--dead-letter-table",
      paramLabel = "TABLE",
      defaultValue = "outbox_dead_letters",
      description = "The dead-letter table. Default: ${DEFAULT-VALUE}.")
  private String deadLetterTable;

  @Option(
      names = "--connect-timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "How long to wait for the database to answer. Default: ${DEFAULT-VALUE}.")
  private Duration connectTimeout;

  DatabaseOptions(Context context) {
    this.context = context;
  }

  /** The URL as it may be printed. */
  String printableUrl() {
    return JdbcUrls.redact(url);
  }

  /** The outbox table. */
  String outboxTable() {
    return outboxTable;
  }

  /** The dead-letter table. */
  String deadLetterTable() {
    return deadLetterTable;
  }

  /**
   * Connects, checks that the three outbox tables are there, and gives the store on them.
   *
   * @throws CliException when the database cannot be reached or a table is missing
   */
  OutboxStore open() {
    OutboxOptions options = options();
    DriverManagerDataSource dataSource =
        new DriverManagerDataSource(requireUrl(), user, password(), connectTimeout);
    try (Connection connection = dataSource.getConnection()) {
      for (String table :
          List.of(options.outboxTable(), options.headTable(), options.deadLetterTable())) {
        checkTable(connection, table);
      }
    } catch (SQLException e) {
      throw unreachable(e);
    }
    return OutboxTables.store(dataSource, options);
  }

  /**
   * Connects once to check the login, and gives the database, for a reader of tables of its own
   * (the inbox's).
   *
   * @throws CliException when the database cannot be reached
   */
  DataSource dataSource() {
    DriverManagerDataSource dataSource =
        new DriverManagerDataSource(requireUrl(), user, password(), connectTimeout);
    try (Connection connection = dataSource.getConnection()) {
      return dataSource;
    } catch (SQLException e) {
      throw unreachable(e);
    }
  }

  private OutboxOptions options() {
    try {
      return OutboxOptions.builder()
          .outboxTable(outboxTable)
          .deadLetterTable(deadLetterTable)
          .vacuumThreshold(0)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  private String requireUrl() {
    if (url == null || url.isBlank()) {
      throw new ParameterException(
          spec.commandLine(),
          "Missing --url (or the environment variable OUTBOX_JDBC_URL): the JDBC URL of the"
              + " database with the outbox tables");
    }
    // A driver may repeat the URL in its errors: whatever password it holds is masked there too.
    context.secrets().addAll(JdbcUrls.secrets(url));
    if (!url.startsWith("jdbc:")) {
      throw new ParameterException(
          spec.commandLine(),
          "--url must be a JDBC URL starting with jdbc:, such as"
              + " jdbc:postgresql://127.0.0.1:5432/orders, but was "
              + printableUrl());
    }
    return url;
  }

  private String password() {
    if (passwordEnv == null) {
      return null;
    }
    String password = context.env().get(passwordEnv);
    if (password == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--password-env names "
              + passwordEnv
              + ", but that environment variable is not set: export "
              + passwordEnv
              + " before running the tool");
    }
    context.secrets().add(password);
    return password;
  }

  /**
   * The failure of a reading after the database was opened: it went away, or stopped answering.
   *
   * @param e what the store threw
   * @return the error with the unreachable exit code
   */
  CliException lost(RuntimeException e) {
    return new CliException(
        Exit.UNREACHABLE,
        "Lost the database at " + printableUrl() + ": " + Messages.firstLine(e),
        e);
  }

  private CliException unreachable(SQLException e) {
    if ("08001".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("suitable")) {
      return new CliException(
          Exit.USAGE,
          "No JDBC driver for "
              + printableUrl()
              + ": the tool reads jdbc:postgresql:, jdbc:mariadb: and jdbc:h2: URLs");
    }
    return new CliException(
        Exit.UNREACHABLE,
        "Cannot connect to "
            + printableUrl()
            + (user == null ? "" : " as " + user)
            + ": "
            + Messages.firstLine(e)
            + ". Check --url, --user and --password-env, and that the database runs.",
        e);
  }

  private void checkTable(Connection connection, String table) {
    try (Statement statement = connection.createStatement()) {
      statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
    } catch (SQLException e) {
      throw new CliException(
          Exit.NO_TABLES,
          "The outbox table "
              + table
              + " cannot be read in "
              + printableUrl()
              + ": "
              + Messages.firstLine(e)
              + ". Create the outbox tables (outbox-jdbc ships"
              + " db/outbox/<database>/V1__outbox_tables.sql and V2__outbox_streams.sql), or name"
              + " yours with --outbox-table"
              + " and --dead-letter-table.",
          e);
    }
  }
}
