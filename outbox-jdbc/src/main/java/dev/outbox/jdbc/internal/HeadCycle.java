package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Claims due heads, reads the messages behind their cursors and records the heads' outcomes, in the
 * caller's transaction; each database's {@link Dialect} gives the statements it does it with.
 *
 * <p>The claim reads the due index ({@code due_at}: set while messages are pending and the head is
 * not held) up to the database clock, oldest first, skipping heads another transaction has locked
 * (a writer between its flush and its commit, another claim), and grants each a new lease token
 * with the lease's end on the database clock. Leased, retrying and held heads are not in the range
 * it reads, so its cost is that of the heads it returns, whatever waits behind them.
 *
 * <p>The messages of a head are the seqs right after its cursor: seqs have no gaps there, so one
 * range per head, read in one statement for all heads.
 */
abstract sealed class HeadCycle permits PostgresHeadCycle, PortableHeadCycle {

  /**
   * A head this transaction holds: its lease, its cursor, the attempts of the next message, and the
   * last seq published, which the next message names as its previous one.
   */
  record Held(Lease lease, long deliveredSeq, int attempts, long publishedSeq) {

    /**
     * The head of the current row of a result with {@code aggregate_type}, {@code aggregate_id},
     * {@code lease_token}, {@code delivered_seq}, {@code attempts} and {@code published_seq}.
     *
     * @param tokenStep added to the token read: 1 when a grant is about to stamp the next one
     */
    static Held read(ResultSet result, long tokenStep) throws SQLException {
      return new Held(
          new Lease(
              result.getString("aggregate_type"),
              result.getString("aggregate_id"),
              result.getLong("lease_token") + tokenStep),
          result.getLong("delivered_seq"),
          result.getInt("attempts"),
          result.getLong("published_seq"));
    }
  }

  final MessageRows rows;
  final HeadRecorder recorder;

  HeadCycle(Dialect dialect, HeadRecorder recorder) {
    this.rows = new MessageRows(dialect);
    this.recorder = recorder;
  }

  /**
   * Records the outcomes of a batch, then claims new heads for what the kept ones leave of the
   * request's limit and reads the next messages of every head held: by default in one transaction.
   *
   * @return the heads with their messages; a head with none is left out
   */
  List<LeasedHead> recordAndClaim(
      Jdbc jdbc, Collection<? extends HeadOutcome> outcomes, ClaimRequest request) {
    return jdbc.inTransaction(
        "record a batch and read on",
        connection -> {
          List<Held> held =
              outcomes.isEmpty()
                  ? List.of()
                  : record(connection, request.instanceId(), outcomes, request.lease());
          int free = request.newHeads() ? Math.max(0, request.limit() - held.size()) : 0;
          if (held.isEmpty() && free == 0) {
            return List.of();
          }
          return claimAndRead(
              connection, request.instanceId(), free, request.lease(), held, request.limit());
        });
  }

  /**
   * Records the outcomes.
   *
   * @param instanceId the holder
   * @param continueFor how long a continued head's lease lasts from now; {@code null} for no
   *     continuation
   * @return the heads that stay leased to the holder, with their new cursor
   */
  final List<Held> record(
      Connection connection,
      String instanceId,
      Collection<? extends HeadOutcome> outcomes,
      Duration continueFor)
      throws SQLException {
    List<Lease> delivering = new ArrayList<>();
    List<HeadChange> changes =
        recorder.changes(connection, outcomes, continueFor != null, delivering);
    if (changes.isEmpty()) {
      return List.of();
    }
    return update(connection, instanceId, changes, delivering, continueFor);
  }

  /**
   * Applies the changes to the heads, in the order given (sorted by key: the order writers lock
   * heads in).
   *
   * @param delivering the leases of the delivered heads among the changes
   * @param continueFor how long a kept head's lease lasts from now; {@code null} for none
   * @return the heads that stay leased to their holder; none when {@code continueFor} is null
   */
  abstract List<Held> update(
      Connection connection,
      String instanceId,
      List<HeadChange> changes,
      List<Lease> delivering,
      Duration continueFor)
      throws SQLException;

  /**
   * Claims up to {@code heads} due heads and reads the next messages of those and of {@code held},
   * {@code limit} shared among them.
   *
   * @return the heads with their messages; a head with none is left out
   */
  abstract List<LeasedHead> claimAndRead(
      Connection connection,
      String instanceId,
      int heads,
      Duration leaseFor,
      List<Held> held,
      int limit)
      throws SQLException;

  /**
   * The statement that reads up to {@code each} messages after the cursor of every head, in seq
   * order, with the columns of {@link MessageRows#COLUMNS}.
   */
  abstract PreparedStatement readStatement(Connection connection, List<Held> heads, int each)
      throws SQLException;

  /**
   * Reads the next messages of each head: an equal share of {@code limit}, at least one each.
   *
   * @return the heads with their messages, in the order given; a head with none is left out
   */
  final List<LeasedHead> read(Connection connection, List<Held> heads, int limit)
      throws SQLException {
    if (heads.isEmpty()) {
      return List.of();
    }
    int each = Math.max(1, limit / heads.size());
    Map<String, List<OutboxMessage>> byHead = new HashMap<>();
    Map<String, Held> byKey = new HashMap<>();
    heads.forEach(head -> byKey.put(key(head.lease()), head));
    try (PreparedStatement statement = readStatement(connection, heads, each);
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        String key =
            HeadUpsert.key(result.getString("aggregate_type"), result.getString("aggregate_id"));
        Held head = byKey.get(key);
        long seq = result.getLong("seq");
        List<OutboxMessage> messages = byHead.computeIfAbsent(key, k -> new ArrayList<>());
        messages.add(
            rows.read(
                result,
                seq == head.deliveredSeq() + 1 ? head.attempts() : 0,
                previous(messages, head.publishedSeq())));
      }
    }
    List<LeasedHead> leased = new ArrayList<>(heads.size());
    for (Held head : heads) {
      List<OutboxMessage> found = byHead.get(key(head.lease()));
      if (found != null) {
        leased.add(new LeasedHead(head.lease(), found));
      }
    }
    return leased;
  }

  /**
   * The previous seq of the next message of a head: the seq of the one read before it, or, for the
   * first, the head's published seq (the messages read start right after the cursor).
   *
   * @param read the head's messages read so far, in seq order
   * @param publishedSeq the head's published seq
   */
  static long previous(List<OutboxMessage> read, long publishedSeq) {
    return read.isEmpty() ? publishedSeq : read.get(read.size() - 1).seq();
  }

  /** Every statement of the cycle, for checks: the ones with a part per head with two heads. */
  abstract List<String> statements();

  static String key(Lease lease) {
    return HeadUpsert.key(lease.aggregateType(), lease.aggregateId());
  }
}
