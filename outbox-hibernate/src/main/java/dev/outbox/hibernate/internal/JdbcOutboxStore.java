package dev.outbox.hibernate.internal;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.Outcome;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;

/**
 * The {@link OutboxStore} on the database of a Hibernate session factory, through its connection
 * provider. Every call is one short transaction of its own. On PostgreSQL the store also vacuums
 * the outbox table after every {@link OutboxOptions#vacuumThreshold()} rows it changed, and when a
 * claim finds nothing after a tenth of that.
 */
public final class JdbcOutboxStore implements OutboxStore {

  private final Jdbc jdbc;
  private final Database database;
  private final ClaimQuery claims;
  private final OutcomeRecorder recorder;
  private final DeadLetterRepository deadLetters;
  private final StatsQuery stats;
  private final TableVacuum vacuum;
  private final String cleanup;

  /**
   * Creates the store.
   *
   * @param connections the session factory's connection provider
   * @param database the database behind it
   * @param options the table names
   */
  public JdbcOutboxStore(ConnectionProvider connections, Database database, OutboxOptions options) {
    this.jdbc = new Jdbc(connections, database);
    this.database = database;
    this.claims = new ClaimQuery(database, options);
    this.recorder = new OutcomeRecorder(database, options);
    this.deadLetters = new DeadLetterRepository(database, options);
    this.stats = new StatsQuery(database, options);
    this.vacuum = new TableVacuum(connections, database, options);
    String table = options.outboxTable();
    String oldest =
        " WHERE status = 'PUBLISHED' AND published_at < ? ORDER BY published_at LIMIT ?";
    this.cleanup =
        switch (database) {
          case MARIADB -> "DELETE FROM " + table + oldest;
          // ARRAY(...) runs the limited subquery once, then deletes through the primary key;
          // "id IN (subquery)" would hash-join against the whole table.
          case POSTGRESQL ->
              "DELETE FROM "
                  + table
                  + " WHERE id = ANY(ARRAY(SELECT id FROM "
                  + table
                  + oldest
                  + "))";
          // H2 deletes too few rows with a LIMIT inside "id IN (subquery)"; FETCH FIRST is exact.
          case H2 ->
              "DELETE FROM "
                  + table
                  + " WHERE status = 'PUBLISHED' AND published_at < ? FETCH FIRST ? ROWS ONLY";
        };
  }

  /** The claim scan, for query plans. */
  String claimScanSql(boolean ordered, boolean hold) {
    return claims.scanSql(ordered, hold);
  }

  /** The cleanup statement, for query plans: published before, limit. */
  String cleanupSql() {
    return cleanup;
  }

  @Override
  public List<OutboxMessage> claim(ClaimRequest request) {
    List<OutboxMessage> claimed =
        jdbc.inTransaction("claim messages", connection -> claims.claim(connection, request));
    vacuumIfDue(0, claimed);
    return claimed;
  }

  @Override
  public void record(String instanceId, Collection<? extends Outcome> outcomes) {
    if (outcomes.isEmpty()) {
      return;
    }
    jdbc.inTransaction(
        "record a batch",
        connection -> {
          recorder.record(connection, instanceId, outcomes);
          return null;
        });
    vacuum.changed(outcomes.size());
  }

  @Override
  public List<OutboxMessage> recordAndClaim(
      String instanceId, Collection<? extends Outcome> outcomes, ClaimRequest request) {
    List<OutboxMessage> claimed =
        jdbc.inTransaction(
            "record a batch and claim the next",
            connection -> {
              if (!outcomes.isEmpty()) {
                recorder.record(connection, instanceId, outcomes);
              }
              return claims.claim(connection, request);
            });
    vacuumIfDue(outcomes.size(), claimed);
    return claimed;
  }

  private void vacuumIfDue(int recorded, List<OutboxMessage> claimed) {
    if (!vacuum.changed(recorded + claimed.size()) && claimed.isEmpty()) {
      vacuum.idle();
    }
  }

  @Override
  public OutboxStats stats() {
    return jdbc.inTransaction("read its counts", stats::read);
  }

  @Override
  public int deletePublished(Instant publishedBefore, int limit) {
    int deleted =
        jdbc.inTransaction(
            "delete published messages",
            connection -> {
              try (PreparedStatement statement = connection.prepareStatement(cleanup)) {
                database.bindInstant(statement, 1, publishedBefore);
                statement.setInt(2, limit);
                return statement.executeUpdate();
              }
            });
    vacuum.changed(deleted);
    return deleted;
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
  public int replayDeadLetters(Collection<UUID> ids, Instant now) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.inTransaction("replay dead letters", c -> deadLetters.replay(c, ids, now));
  }

  @Override
  public int purgeDeadLetters(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return jdbc.inTransaction("purge dead letters", c -> deadLetters.purge(c, ids));
  }
}
