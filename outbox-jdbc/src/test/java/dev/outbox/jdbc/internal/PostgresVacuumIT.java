package dev.outbox.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store vacuums the outbox table itself on PostgreSQL once the rows it changed reach {@link
 * OutboxOptions#vacuumThreshold()}, so that claims do not walk past dead row versions when
 * autovacuum is off or behind; and it stops trying when PostgreSQL skips the vacuum because the
 * database user does not own the table.
 */
class PostgresVacuumIT {

  private static final String TABLE = "vacuum_outbox";
  private static final String DEAD = "vacuum_dead_letters";
  private static final String HEADS = "vacuum_outbox_heads";
  private static final String GUEST = "outbox_vacuum_guest";

  private final DataSource dataSource = TestDatabase.POSTGRESQL.dataSource();

  @BeforeEach
  void createTable() throws SQLException {
    TestDatabase.POSTGRESQL.assumeReachable();
    OutboxTable.drop(dataSource, TABLE, DEAD);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      for (String ddl : new SchemaManager(new PostgresDialect(options(0)), options(0)).ddl()) {
        statement.execute(ddl);
      }
      statement.execute(
          "INSERT INTO "
              + TABLE
              + " (id, aggregate_type, aggregate_id, seq, event_type, content_type, payload,"
              + " headers, occurred_at, created_at) SELECT gen_random_uuid(), 'Order',"
              + " (g % 50)::text, g / 50 + 1, 'e', 'application/json', '{}', '{}', now(), now()"
              + " FROM generate_series(0, 299) g");
      statement.execute(
          "INSERT INTO "
              + HEADS
              + " (aggregate_type, aggregate_id, write_seq, available_at) SELECT 'Order', g::text,"
              + " 6, now() FROM generate_series(0, 49) g");
    }
  }

  @AfterEach
  void dropTableAndRole() throws SQLException {
    OutboxTable.drop(dataSource, TABLE, DEAD);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP ROLE IF EXISTS " + GUEST);
    }
  }

  @Test
  void claimsAndOutcomesPastTheThresholdVacuumTheTableAndLeaveNoDeadRows() throws SQLException {
    // three claims of 50 heads and their outcomes: 300 changed rows, the last by the last record
    JdbcOutboxStore store =
        new JdbcOutboxStore(dataSource, new PostgresDialect(options(300)), options(300));
    long before = vacuumCount();
    for (int i = 0; i < 3; i++) {
      List<LeasedHead> claimed = store.claim(request());
      assertThat(claimed).hasSize(50);
      assertThat(vacuumCount()).isEqualTo(before);
      store.record(delivered(claimed));
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount() > before);
    await().atMost(Duration.ofSeconds(30)).until(() -> deadRows() == 0);
  }

  @Test
  void aClaimThatFindsNothingAfterATenthOfTheThresholdVacuums() throws SQLException {
    JdbcOutboxStore store =
        new JdbcOutboxStore(dataSource, new PostgresDialect(options(1_000)), options(1_000));
    long before = vacuumCount();
    List<LeasedHead> claimed;
    while (!(claimed = store.claim(request())).isEmpty()) {
      store.record(delivered(claimed));
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount() > before);
    await().atMost(Duration.ofSeconds(30)).until(() -> deadRows() == 0);
  }

  @Test
  void belowTheThresholdOrOffOrOnAnotherDatabaseNoVacuumStarts() {
    TableVacuum below = vacuum(new PostgresDialect(options(100)), 100);
    assertThat(below.changed(9)).isFalse();
    assertThat(below.idle()).as("nine changed rows are not a tenth of 100").isFalse();
    assertThat(below.changed(60)).isFalse();
    assertThat(below.changed(30)).isFalse();
    assertThat(vacuum(new PostgresDialect(options(0)), 0).changed(1_000)).isFalse();
    assertThat(vacuum(new PostgresDialect(options(0)), 0).idle()).isFalse();
    assertThat(vacuum(new MariaDbDialect(options(100)), 100).changed(1_000)).isFalse();
    assertThat(vacuum(new H2Dialect(options(100)), 100).changed(1_000)).isFalse();
  }

  @Test
  void aUserWhoDoesNotOwnTheTableIsSkippedOnceAndNotAskedAgain() throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE ROLE " + GUEST + " LOGIN");
      statement.execute("GRANT SELECT, UPDATE ON " + TABLE + ", " + HEADS + " TO " + GUEST);
    }
    PGSimpleDataSource guest = new PGSimpleDataSource();
    guest.setURL("jdbc:postgresql://127.0.0.1:5432/test?user=" + GUEST);
    TableVacuum vacuum = new PostgresDialect(options(10)).vacuum(guest, 10);

    assertThat(vacuum.vacuum()).isFalse();
    assertThat(vacuum.changed(1_000)).isFalse();
  }

  private TableVacuum vacuum(Dialect dialect, long threshold) {
    return dialect.vacuum(dataSource, threshold);
  }

  private static OutboxOptions options(int threshold) {
    return OutboxOptions.builder()
        .outboxTable(TABLE)
        .deadLetterTable(DEAD)
        .vacuumThreshold(threshold)
        .build();
  }

  private static ClaimRequest request() {
    return new ClaimRequest("vacuum-test", 50, Duration.ofMinutes(1), true);
  }

  private static List<HeadOutcome> delivered(List<LeasedHead> heads) {
    return heads.stream()
        .<HeadOutcome>map(
            head ->
                new HeadOutcome.Delivered(
                    head.lease(), head.messages().get(head.messages().size() - 1).seq()))
        .toList();
  }

  private long vacuumCount() throws SQLException {
    return statistic("vacuum_count");
  }

  private long deadRows() throws SQLException {
    return statistic("n_dead_tup");
  }

  private long statistic(String column) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT " + column + " FROM pg_stat_user_tables WHERE relname = '" + HEADS + "'")) {
      result.next();
      return result.getLong(1);
    }
  }
}
