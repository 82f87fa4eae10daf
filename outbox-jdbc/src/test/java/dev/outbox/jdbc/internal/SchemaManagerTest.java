package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxSchemaException;
import dev.outbox.jdbc.OutboxSchemaException.Problem;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaManagerTest {

  @Test
  void ddlUsesConfiguredTableNamesAndRenamesTheirIndexes() {
    OutboxOptions options =
        OutboxOptions.builder().outboxTable("app.events").deadLetterTable("app.dead").build();
    List<String> ddl = new SchemaManager(new PostgresDialect(options), options).ddl();

    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.events ("));
    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.dead ("));
    assertThat(ddl)
        .anySatisfy(
            sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.events_heads ("));
    assertThat(ddl)
        .anySatisfy(sql -> assertThat(sql).contains("ix_events_created").contains("ON app.events"));
    assertThat(ddl)
        .anySatisfy(
            sql -> assertThat(sql).contains("ix_events_heads_due").contains("ON app.events_heads"));
    assertThat(ddl)
        .anySatisfy(
            sql ->
                assertThat(sql)
                    .startsWith("CREATE OR REPLACE VIEW app.events_published")
                    .contains("FROM app.events m JOIN app.events_heads h"));
    assertThat(String.join("\n", ddl))
        .doesNotContain("outbox_messages")
        .doesNotContain("outbox_heads")
        .doesNotContain("outbox_published")
        .doesNotContain("outbox_dead_letters")
        .doesNotContain("--");
  }

  @Test
  void everyDatabaseShipsThreeTablesAndThePublishedView() {
    OutboxOptions options = OutboxOptions.defaults();
    for (Dialect dialect :
        List.of(
            new PostgresDialect(options), new MariaDbDialect(options), new H2Dialect(options))) {
      List<String> ddl = new SchemaManager(dialect, options).ddl();
      assertThat(ddl.stream().filter(sql -> sql.startsWith("CREATE TABLE")))
          .as(dialect.toString())
          .hasSize(3);
      assertThat(ddl.stream().filter(sql -> sql.startsWith("CREATE OR REPLACE VIEW")))
          .as(dialect.toString())
          .hasSize(1);
    }
  }

  @Test
  void everyMissingTableIsNamedWithTheDatabaseAndTheMigration() throws Exception {
    OutboxOptions options = OutboxOptions.defaults();
    try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:schema_missing")) {
      OutboxSchemaException failure =
          catchThrowableOfType(
              OutboxSchemaException.class,
              () -> new SchemaManager(new H2Dialect(options), options).prepare(connection));

      assertThat(failure.problem()).isEqualTo(Problem.MISSING_TABLES);
      assertThat(failure.tables())
          .containsExactly("outbox_messages", "outbox_heads", "outbox_dead_letters");
      assertThat(failure.database()).isEqualTo("H2 database 'SCHEMA_MISSING', schema 'PUBLIC'");
      assertThat(failure.migrationLocation()).isEqualTo("classpath:db/outbox/h2");
      assertThat(failure.getMessage())
          .startsWith(
              "The outbox table 'outbox_messages' does not exist in the H2 database"
                  + " 'SCHEMA_MISSING', schema 'PUBLIC' (")
          .contains(
              "). The tables 'outbox_heads' and 'outbox_dead_letters' are missing too. Create them"
                  + " with the migrations shipped in outbox-jdbc, classpath:db/outbox/h2"
                  + " (V1__outbox_tables.sql, V2__outbox_streams.sql) (run them with Flyway,"
                  + " Liquibase or your SQL client), or set OutboxOptions.builder().createSchema(true) to"
                  + " create them at start in development.");
      assertThat(failure.getSuppressed()).hasSize(2);
    }
  }

  @Test
  void tablesLackingColumnsAreNamedOnceEveryTableExists() throws Exception {
    OutboxOptions options = OutboxOptions.defaults();
    try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:schema_stale");
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE outbox_messages (id uuid PRIMARY KEY)");
      statement.execute("CREATE TABLE outbox_dead_letters (id uuid PRIMARY KEY)");
      new SchemaManager(new H2Dialect(options), options)
          .ddl().stream()
              .filter(sql -> sql.contains("outbox_heads") && !sql.contains("VIEW"))
              .forEach(sql -> execute(statement, sql));

      OutboxSchemaException failure =
          catchThrowableOfType(
              OutboxSchemaException.class,
              () -> new SchemaManager(new H2Dialect(options), options).prepare(connection));

      assertThat(failure.problem()).isEqualTo(Problem.MISSING_COLUMNS);
      assertThat(failure.tables()).containsExactly("outbox_messages", "outbox_dead_letters");
      assertThat(failure.getMessage())
          .startsWith(
              "The outbox table 'outbox_messages' in the H2 database 'SCHEMA_STALE', schema"
                  + " 'PUBLIC' lacks columns the outbox needs (")
          .endsWith(
              "). The table 'outbox_dead_letters' lacks columns too. Compare them with"
                  + " classpath:db/outbox/h2 (V1__outbox_tables.sql, V2__outbox_streams.sql) and"
                  + " migrate them.");
    }
  }

  @Test
  void tablesOfTheFirstMigrationLackTheStreamColumnsUntilTheSecondRuns() throws Exception {
    OutboxOptions options = OutboxOptions.defaults();
    try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:schema_v1");
        Statement statement = connection.createStatement()) {
      String v1;
      try (var in =
          SchemaManagerTest.class
              .getClassLoader()
              .getResourceAsStream("db/outbox/h2/V1__outbox_tables.sql")) {
        v1 = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }
      for (String sql : v1.replaceAll("(?m)^--.*$", "").split(";")) {
        if (!sql.isBlank()) {
          execute(statement, sql);
        }
      }
      statement.execute(
          "INSERT INTO outbox_heads (aggregate_type, aggregate_id, write_seq, delivered_seq,"
              + " available_at) VALUES ('Order', 'o-1', 3, 3, CURRENT_TIMESTAMP)");

      OutboxSchemaException stale =
          catchThrowableOfType(
              OutboxSchemaException.class,
              () -> new SchemaManager(new H2Dialect(options), options).prepare(connection));
      assertThat(stale.problem()).isEqualTo(Problem.MISSING_COLUMNS);
      assertThat(stale.tables())
          .containsExactly("outbox_messages", "outbox_heads", "outbox_dead_letters");
      assertThat(stale.getMessage()).contains("V2__outbox_streams.sql");

      OutboxOptions create = options.toBuilder().createSchema(true).build();
      new SchemaManager(new H2Dialect(create), create).prepare(connection);
      new SchemaManager(new H2Dialect(create), create).prepare(connection);
      try (var rows =
          statement.executeQuery("SELECT epoch, published_seq, delivered_seq FROM outbox_heads")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong("epoch")).as("a head of before the epoch").isZero();
        assertThat(rows.getLong("published_seq")).isZero();
        assertThat(rows.getLong("delivered_seq")).as("kept as it was").isEqualTo(3);
      }
    }
  }

  private static void execute(Statement statement, String sql) {
    try {
      statement.execute(sql);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
