package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.jdbc.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * The README's Flyway recipe as written (Flyway with its PostgreSQL module, the shipped location, a
 * history table of its own), in a schema of its own so that it leaves the other tests' tables
 * alone; then an outbox that does not create its tables starts on what Flyway made and writes.
 */
class FlywayRecipeIT {

  private static final String SCHEMA = "flyway_recipe";

  @Test
  void theShippedMigrationRunsWithFlywayAndTheOutboxStartsOnItsTables() throws Exception {
    TestDatabase database = TestDatabase.POSTGRESQL;
    database.assumeReachable();
    DataSource dataSource = database.dataSource();
    execute(dataSource, "DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");

    MigrateResult result =
        Flyway.configure()
            .dataSource(dataSource)
            .schemas(SCHEMA)
            .locations("classpath:db/outbox/postgresql")
            .table("outbox_schema_history")
            .load()
            .migrate();

    assertThat(result.migrationsExecuted).as("V1, then V2").isEqualTo(2);
    assertThat(result.targetSchemaVersion).isEqualTo("2");
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable(SCHEMA + ".outbox_messages")
            .deadLetterTable(SCHEMA + ".outbox_dead_letters")
            .build();
    try (SessionFactory emf = Emfs.create(dataSource, options)) {
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(91_001, BigDecimal.TEN)));
    }
    assertThat(count(dataSource, SCHEMA + ".outbox_messages")).isEqualTo(1);
    assertThat(count(dataSource, SCHEMA + ".outbox_heads")).isEqualTo(1);
    assertThat(
            count(
                dataSource,
                SCHEMA + ".outbox_schema_history WHERE version IN ('1', '2') AND success"))
        .as("V1 and V2 recorded in the outbox's own history table")
        .isEqualTo(2);
    execute(dataSource, "DROP SCHEMA " + SCHEMA + " CASCADE");
  }

  private static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static long count(DataSource dataSource, String table) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT count(*) FROM " + table)) {
      result.next();
      return result.getLong(1);
    }
  }
}
