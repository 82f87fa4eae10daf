package dev.outbox.jdbc.internal;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.LocalCommitHandOver;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The {@link OutboxStore} on a database reached through a {@link DataSource}: append-only messages
 * and one head per aggregate. Every call is one short transaction of its own. On PostgreSQL the
 * store also vacuums its tables after every {@link OutboxOptions#vacuumThreshold()} rows it
 * changed, and when a claim finds nothing after a tenth of that.
 */
public final class JdbcOutboxStore implements OutboxStore {

  private final Jdbc jdbc;
  private final HeadCycle heads;
  private final HeadRecorder recorder;
  private final DeadLetterRepository deadLetters;
  private final StatsQuery stats;
  private final TableVacuum vacuum;
  private final MessageCleanup cleanup;
  private final Optional<CommitHandOver> handOver;

  /**
   * Creates the store.
   *
   * @param connections where the store's own connections come from
   * @param dialect the database behind it, and the table names
   * @param options the vacuum threshold
   */
  public JdbcOutboxStore(DataSource connections, Dialect dialect, OutboxOptions options) {
    this(connections, dialect, options, null);
  }

  /**
   * Creates the store whose writers in this JVM hand committed messages over.
   *
   * @param connections where the store's own connections come from
   * @param dialect the database behind it, and the table names
   * @param options the vacuum threshold
   * @param handOver the writers' hand-over; {@code null} for none
   */
  public JdbcOutboxStore(
      DataSource connections,
      Dialect dialect,
      OutboxOptions options,
      LocalCommitHandOver handOver) {
    this.handOver = Optional.ofNullable(handOver);
    this.jdbc = new Jdbc(connections, dialect);
    this.recorder = new HeadRecorder(dialect);
    this.heads = dialect.headCycle(recorder);
    this.deadLetters = new DeadLetterRepository(dialect);
    this.stats = new StatsQuery(dialect);
    this.vacuum = dialect.vacuum(connections, options.vacuumThreshold());
    this.cleanup = new MessageCleanup(dialect);
  }

  /** The cleanup statement, for query plans: created before, limit. */
  String cleanupSql() {
    return cleanup.deliveredSql();
  }

  @Override
  public List<LeasedHead> recordAndClaim(
      Collection<? extends HeadOutcome> outcomes, ClaimRequest request) {
    List<LeasedHead> leased = heads.recordAndClaim(jdbc, outcomes, request);
    int changed = outcomes.size() + leased.size();
    if (!vacuum.changed(changed) && leased.isEmpty()) {
      vacuum.idle();
    }
    return leased;
  }

  @Override
  public void record(Collection<? extends HeadOutcome> outcomes) {
    if (outcomes.isEmpty()) {
      return;
    }
    jdbc.inTransaction(
        "record a batch", connection -> heads.record(connection, "", outcomes, null));
    vacuum.changed(outcomes.size());
  }

  @Override
  public List<Lease> renew(String instanceId, Collection<Lease> leases, Duration lease) {
    if (leases.isEmpty()) {
      return List.of();
    }
    return jdbc.inTransaction(
        "renew leases", connection -> recorder.renew(connection, instanceId, leases, lease));
  }

  @Override
  public OutboxStats stats() {
    return jdbc.inTransaction("read its counts", stats::read);
  }

  @Override
  public int deleteDelivered(Instant createdBefore, int limit) {
    int deleted =
        jdbc.inTransaction(
            "delete delivered messages",
            connection -> cleanup.deleteDelivered(connection, createdBefore, limit));
    if (deleted < limit) {
      int heads = jdbc.inTransaction("delete idle heads", c -> cleanup.deleteIdleHeads(c, limit));
      vacuum.changed(heads);
    }
    vacuum.changed(deleted);
    return deleted;
  }

  @Override
  public int deleteWritten(Instant createdBefore, int limit) {
    int deleted =
        jdbc.inTransaction(
            "delete written messages",
            connection -> cleanup.deleteWritten(connection, createdBefore, limit));
    vacuum.changed(deleted);
    return deleted;
  }

  @Override
  public AggregateCounts aggregateCounts() {
    return jdbc.inTransaction("count its aggregates", stats::aggregates);
  }

  @Override
  public Optional<DeadLetter> findDeadLetter(UUID id) {
    return jdbc.inTransaction("read a dead letter", c -> deadLetters.find(c, id));
  }

  @Override
  public List<DeadLetter> findDeadLetters(DeadLetterQuery query) {
    return jdbc.inTransaction("list dead letters", c -> deadLetters.find(c, query));
  }

  @Override
  public long countDeadLetters(DeadLetterQuery query) {
    return jdbc.inTransaction("count dead letters", c -> deadLetters.count(c, query));
  }

  @Override
  public int replayDeadLetters(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.inTransaction("replay dead letters", c -> deadLetters.replay(c, ids));
  }

  @Override
  public int purgeDeadLetters(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.inTransaction("purge dead letters", c -> deadLetters.purge(c, ids));
  }

  @Override
  public Optional<CommitHandOver> commitHandOver() {
    return handOver;
  }
}
