package dev.outbox.hibernate.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.OutboxTable;
import dev.outbox.hibernate.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every query of the processor and of cleanup uses an index on a large table: 200,000 published
 * rows, 2,000 pending rows of 500 aggregates, and dead letters: no plan scans the outbox table. The
 * plans are printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresQueryPlanIT {

  private static final String TABLE = "plan_outbox";
  private static final String DEAD = "plan_dead_letters";

  private final DataSource dataSource = TestDatabase.POSTGRESQL.dataSource();
  private JdbcOutboxStore store;

  @BeforeAll
  void fillLargeTable() throws SQLException {
    TestDatabase.POSTGRESQL.assumeReachable();
    OutboxTable.drop(dataSource, TABLE, DEAD);
    OutboxOptions options =
        OutboxOptions.builder().outboxTable(TABLE).deadLetterTable(DEAD).build();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String ddl : new SchemaManager(Database.POSTGRESQL, options).ddl()) {
        statement.execute(ddl);
      }
      statement.execute(
          "INSERT INTO "
              + TABLE
              + " (id, aggregate_type, aggregate_id, event_type, content_type,"
              + " payload, headers, occurred_at, created_at, status, attempts, next_attempt_at,"
              + " published_at) SELECT gen_random_uuid(), 'Order', (g % 5000)::text, 'e',"
              + " 'application/json', '{}', '{}', now(), now(), 'PUBLISHED', 0, now(),"
              + " now() - interval '1 day' * (g % 10) FROM generate_series(1, 200000) g");
      statement.execute(
          "INSERT INTO "
              + TABLE
              + " (id, aggregate_type, aggregate_id, event_type, content_type,"
              + " payload, headers, occurred_at, created_at, status, attempts, next_attempt_at)"
              + " SELECT gen_random_uuid(), 'Order', (g % 500)::text, 'e', 'application/json',"
              + " '{}', '{}', now(), now(), 'PENDING', 0, now() FROM generate_series(1, 2000) g");
      statement.execute(
          "INSERT INTO "
              + DEAD
              + " SELECT id, position, aggregate_type, aggregate_id, event_type,"
              + " content_type, payload, headers, occurred_at, created_at, 1, 'x', now() FROM "
              + TABLE
              + " WHERE status = 'PUBLISHED' LIMIT 5000");
      statement.execute("ANALYZE " + TABLE);
      statement.execute("ANALYZE " + DEAD);
    }
    store = new JdbcOutboxStore(null, Database.POSTGRESQL, options);
  }

  @AfterAll
  void dropTables() {
    if (store != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD);
    }
  }

  @Test
  void orderedClaimWithHoldUsesIndexes() throws SQLException {
    String plan = explain(store.claimScanSql(true, true), now(), now(), now(), now(), 100);
    assertThat(plan)
        .contains("ix_plan_outbox_pending")
        .contains("ix_plan_outbox_pending_aggregate")
        .doesNotContain("Seq Scan on plan_outbox");
  }

  @Test
  void unorderedClaimUsesTheIndex() throws SQLException {
    String plan = explain(store.claimScanSql(false, false), now(), now(), 100);
    assertThat(plan).contains("ix_plan_outbox_pending").doesNotContain("Seq Scan on plan_outbox");
  }

  @Test
  void cleanupUsesTheIndex() throws SQLException {
    String plan = explain(store.cleanupSql(), now().minusDays(5), 1000);
    assertThat(plan).contains("ix_plan_outbox_published").doesNotContain("Seq Scan on plan_outbox");
  }

  private static java.time.OffsetDateTime now() {
    return Instant.now().atOffset(ZoneOffset.UTC);
  }

  private String explain(String sql, Object... parameters) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement("EXPLAIN " + sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      List<String> lines = new ArrayList<>();
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          lines.add(result.getString(1));
        }
      }
      String plan = String.join("\n", lines);
      System.out.println("EXPLAIN " + sql + "\n" + plan + "\n");
      return plan;
    }
  }
}
