package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The store contract and the JDBC store's own tests on the real PostgreSQL. */
class PostgresOutboxStoreIT extends AbstractOutboxStoreIT {
  PostgresOutboxStoreIT() {
    super(TestDatabase.POSTGRESQL);
  }

  @Test
  void aContinuedHeadWithItsKeptLeaseLeftKeepsItsDueTimeSoTheUpdateTouchesNoIndex() {
    String aggregate = write(1, 3).get(0);
    List<LeasedHead> first = claim("a", 1);
    Instant before = outbox.availableAt(AGGREGATE_TYPE, aggregate);

    List<LeasedHead> next = store().recordAndClaim(delivered(first), readOn("a"));

    assertThat(next).singleElement().extracting(LeasedHead::lease).isEqualTo(first.get(0).lease());
    assertThat(outbox.availableAt(AGGREGATE_TYPE, aggregate)).isEqualTo(before);
  }

  @Test
  void theRecordLocksHeadsInKeyOrderSoAWriterOfTwoAggregatesNeverDeadlocksWithIt()
      throws Exception {
    // Heads created b first, then 300 others, then a: a scan of the table meets b long before a,
    // and the table is large enough for the join to scan it.
    String a = "lock-order-a";
    String b = "lock-order-b";
    commit(List.of(new NewMessage(AGGREGATE_TYPE, b, NEXT_EVENT_TYPE, "first", Map.of())));
    write(300, 1);
    commit(List.of(new NewMessage(AGGREGATE_TYPE, a, NEXT_EVENT_TYPE, "last", Map.of())));
    List<LeasedHead> all = claim("p", 400);
    assertThat(all).hasSize(302);
    List<LeasedHead> both =
        all.stream().filter(head -> head.lease().aggregateId().startsWith("lock-order-")).toList();
    store()
        .record(
            delivered(
                all.stream()
                    .filter(head -> !head.lease().aggregateId().startsWith("lock-order-"))
                    .toList()));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection writer = dataSource.getConnection()) {
      writer.setAutoCommit(false);
      lockHead(writer, a); // a writer of a and b locks a first: keys in sorted order

      Future<?> recording = pool.submit(() -> store().record(delivered(both)));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> waitsForALock("%" + OutboxTable.headTable(TABLE) + "%"));
      try (Statement settings = writer.createStatement()) {
        settings.execute("SET LOCAL lock_timeout = '5s'");
        // This session checks for a deadlock before the record's does (1 s), so that a deadlock
        // fails here rather than being retried away by the record.
        settings.execute("SET LOCAL deadlock_timeout = '100ms'");
      }
      lockHead(writer, b); // fails with a deadlock when the record took b before a
      writer.commit();

      recording.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(heads())
        .filteredOn(head -> head.aggregateId().startsWith("lock-order-"))
        .allSatisfy(head -> assertThat(head.deliveredSeq()).isEqualTo(1));
  }

  private static void lockHead(Connection connection, String aggregateId) throws SQLException {
    try (PreparedStatement lock =
        connection.prepareStatement(
            "SELECT write_seq FROM "
                + OutboxTable.headTable(TABLE)
                + " WHERE aggregate_type = ? AND aggregate_id = ? FOR UPDATE")) {
      lock.setString(1, AGGREGATE_TYPE);
      lock.setString(2, aggregateId);
      lock.executeQuery().close();
    }
  }

  /** Whether a statement on the table waits for a row lock (the record, here). */
  private boolean waitsForALock(String queryLike) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE ? AND pid <> pg_backend_pid()")) {
      select.setString(1, queryLike);
      try (ResultSet rows = select.executeQuery()) {
        rows.next();
        return rows.getLong(1) > 0;
      }
    }
  }
}
