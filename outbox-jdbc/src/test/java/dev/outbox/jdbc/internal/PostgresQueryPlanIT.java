package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
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
 * The claim and cleanup use their indexes on large tables: 200,000 delivered messages over 5,000
 * idle heads, 30,000 pending messages behind 200 heads another instance holds, and dead letters.
 * The plans are printed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresQueryPlanIT {

  private static final String TABLE = "plan_outbox";
  private static final String DEAD = "plan_dead_letters";

  private final DataSource dataSource = TestDatabase.POSTGRESQL.dataSource();
  private JdbcOutboxStore store;
  private String claimSql;

  @BeforeAll
  void fillLargeTable() throws SQLException {
    TestDatabase.POSTGRESQL.assumeReachable();
    OutboxTable.drop(dataSource, TABLE, DEAD);
    OutboxOptions options =
        OutboxOptions.builder().outboxTable(TABLE).deadLetterTable(DEAD).build();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String ddl : new SchemaManager(new PostgresDialect(options), options).ddl()) {
        statement.execute(ddl);
      }
      String heads = options.headTable();
      // 200,000 delivered messages over 5,000 idle heads, as a week of retention would leave.
      statement.execute(
          "INSERT INTO "
              + TABLE
              + " (id, aggregate_type, aggregate_id, seq, event_type, content_type, payload,"
              + " headers, occurred_at, created_at) SELECT gen_random_uuid(), 'Order',"
              + " (g % 5000)::text, g / 5000 + 1, 'e', 'application/json', '{}', '{}', now(),"
              + " now() - interval '1 day' * (g % 10) FROM generate_series(0, 199999) g");
      statement.execute(
          "INSERT INTO "
              + heads
              + " (aggregate_type, aggregate_id, write_seq, delivered_seq, available_at)"
              + " SELECT 'Order', g::text, 40, 40, now() FROM generate_series(0, 4999) g");
      // 30,000 pending messages over 200 heads another instance holds: the version 1 claim
      // walked all of them.
      statement.execute(
          "INSERT INTO "
              + TABLE
              + " (id, aggregate_type, aggregate_id, seq, event_type, content_type, payload,"
              + " headers, occurred_at, created_at) SELECT gen_random_uuid(), 'Leased',"
              + " (g % 200)::text, g / 200 + 1, 'e', 'application/json', '{}', '{}', now(), now()"
              + " FROM generate_series(0, 29999) g");
      statement.execute(
          "INSERT INTO "
              + heads
              + " (aggregate_type, aggregate_id, write_seq, delivered_seq, available_at,"
              + " claimed_by, lease_token) SELECT 'Leased', g::text, 150, 0,"
              + " now() + interval '1 hour', 'other', 1 FROM generate_series(0, 199) g");
      statement.execute(
          "INSERT INTO "
              + DEAD
              + " SELECT id, aggregate_type, aggregate_id, seq, event_type, content_type,"
              + " payload, headers, occurred_at, created_at, 1, 'x', now() FROM "
              + TABLE
              + " LIMIT 5000");
      statement.execute("ANALYZE " + heads);
      statement.execute("ANALYZE " + TABLE);
      statement.execute("ANALYZE " + DEAD);
    }
    store = new JdbcOutboxStore(null, new PostgresDialect(options), options);
    claimSql = new PostgresHeadStatements(new PostgresDialect(options)).claimAndReadSql();
  }

  @AfterAll
  void dropTables() {
    if (store != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD);
    }
  }

  @Test
  void claimReadsTheDueIndexOnlyWhateverTheLeasedHeadsHold() throws SQLException {
    String plan =
        explain(
            claimSql,
            "me",
            60.0,
            100,
            new String[0],
            new String[0],
            new Long[0],
            new Long[0],
            new Integer[0],
            new Long[0],
            100);
    assertThat(plan)
        .contains("ix_plan_outbox_heads_due")
        .as("the index range ends at now: heads leased or retrying later are not walked")
        .contains("Index Cond: (due_at <= statement_timestamp())")
        .doesNotContain("Seq Scan on plan_outbox_heads")
        .as("messages are read through the seq index, never scanned")
        .contains("uq_plan_outbox_seq")
        .doesNotContain("Seq Scan on plan_outbox ");
  }

  @Test
  void cleanupUsesTheIndexOfCreationTimes() throws SQLException {
    String plan = explain(store.cleanupSql(), now().minusDays(5), 1000);
    assertThat(plan).contains("ix_plan_outbox_created").doesNotContain("Seq Scan on plan_outbox");
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
