package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import dev.outbox.testkit.OutboxStoreContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store on a real database, held to the {@link OutboxStoreContract} with messages written
 * by {@link JdbcOutbox}, and what only a database shows: a head another transaction holds, a writer
 * holding a head while the holder records, the published view. Each database runs it through a
 * subclass.
 */
abstract class AbstractOutboxStoreIT extends OutboxStoreContract {

  static final String TABLE = "sc_outbox";
  private static final String DEAD_LETTERS = "sc_dead_letters";

  private final TestDatabase database;
  DataSource dataSource;
  private JdbcOutbox jdbc;

  /** The outbox table as the tests read it. */
  OutboxTable outbox;

  AbstractOutboxStoreIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void createTables() {
    database.assumeReachable();
    dataSource = database.dataSource();
    OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    jdbc =
        JdbcOutbox.create(
            dataSource,
            OutboxOptions.builder()
                .outboxTable(TABLE)
                .deadLetterTable(DEAD_LETTERS)
                .createSchema(true)
                .build());
    outbox = new OutboxTable(dataSource, TABLE);
  }

  @AfterAll
  void dropTables() {
    if (dataSource != null) {
      OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
    }
  }

  @Override
  protected OutboxStore store() {
    return jdbc.store();
  }

  @Override
  protected void clear() {
    outbox.clear();
    OutboxTable.deleteAll(dataSource, DEAD_LETTERS);
  }

  @Override
  protected void commit(List<NewMessage> messages) {
    jdbc.inTransaction(
        connection -> {
          send(connection, messages);
          return null;
        });
  }

  private void send(Connection connection, List<NewMessage> messages) {
    EventBatch batch = jdbc.batch();
    messages.forEach(m -> batch.add(m.aggregateType(), m.aggregateId(), m.event()));
    batch.send(connection);
  }

  @Override
  protected List<StoredHead> heads() {
    return outbox.heads().stream()
        .map(
            h ->
                new StoredHead(
                    h.aggregateType(),
                    h.aggregateId(),
                    h.writeSeq(),
                    h.deliveredSeq(),
                    outbox.availableAt(h.aggregateType(), h.aggregateId()),
                    h.claimedBy(),
                    h.leaseToken(),
                    h.attempts(),
                    h.lastError(),
                    h.held()))
        .toList();
  }

  @Override
  protected List<StoredMessage> messages() {
    return outbox.rows().stream()
        .map(
            row ->
                new StoredMessage(
                    row.aggregateType(),
                    row.aggregateId(),
                    row.seq(),
                    "PUBLISHED".equals(row.status())))
        .toList();
  }

  @Test
  void aHeadAnotherTransactionHoldsIsSkippedNotWaitedFor() throws Exception {
    List<String> aggregates = write(2, 3);
    String held = aggregates.get(0);
    String free = aggregates.get(1);

    try (Connection other = dataSource.getConnection()) {
      other.setAutoCommit(false);
      try (PreparedStatement lock =
          other.prepareStatement(
              "SELECT write_seq FROM "
                  + OutboxTable.headTable(TABLE)
                  + " WHERE aggregate_type = ? AND aggregate_id = ? FOR UPDATE")) {
        lock.setString(1, AGGREGATE_TYPE);
        lock.setString(2, held);
        lock.executeQuery().close();
      }

      List<LeasedHead> claimed = claim("a", 10);

      assertThat(claimed).extracting(head -> head.lease().aggregateId()).containsExactly(free);
      assertThat(head(held).claimedBy()).isNull();
      other.rollback();
    }
    assertThat(claim("b", 10)).extracting(head -> head.lease().aggregateId()).containsExactly(held);
  }

  @Test
  void aWriterCommittingWhileTheHolderRecordsIsReadOnAfterItsCommit() throws Exception {
    String aggregate = write(1, 1).get(0);
    List<LeasedHead> first = claim("a", 10);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection writer = dataSource.getConnection()) {
      writer.setAutoCommit(false);
      send(
          writer,
          List.of(new NewMessage(AGGREGATE_TYPE, aggregate, NEXT_EVENT_TYPE, "late", Map.of())));
      // the writer now holds the head's row lock until it commits

      Future<List<LeasedHead>> recording =
          pool.submit(() -> store().recordAndClaim(delivered(first), readOn("a")));
      Thread.sleep(300); // give the record time to reach the lock; it must wait, not skip
      assertThat(recording).isNotDone();
      writer.commit();

      assertThat(recording.get(30, TimeUnit.SECONDS))
          .as("the record saw the committed write and kept the head for it")
          .singleElement()
          .satisfies(
              head ->
                  assertThat(head.messages()).extracting(OutboxMessage::seq).containsExactly(2L));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void publishedViewShowsWhatIsAtOrBeforeTheCursor() throws Exception {
    write(1, 3);
    LeasedHead head = claim("a", 10).get(0);
    store().record(List.of(new HeadOutcome.Delivered(head.lease(), 2)));

    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT seq FROM " + jdbc.options().publishedView() + " ORDER BY seq");
        ResultSet result = statement.executeQuery()) {
      List<Long> seqs = new ArrayList<>();
      while (result.next()) {
        seqs.add(result.getLong(1));
      }
      assertThat(seqs).containsExactly(1L, 2L);
    }
  }
}
