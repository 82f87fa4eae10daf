package dev.outbox.jdbc.internal;

import dev.outbox.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of {@link PostgresHeadCycle}, with their parameters bound: the record of a whole
 * batch of heads as one {@code UPDATE ... FROM unnest(...)} statement whose {@code RETURNING} names
 * the heads that stay leased, the claim, and the read of the heads' next messages as one join on
 * {@code unnest(...)}: one round trip each, whatever the batch size, and one prepared statement for
 * every size.
 */
final class PostgresHeadStatements {

  /** The message columns of {@link MessageRows#COLUMNS}, of the joined message {@code m}. */
  private static final String MESSAGE_COLUMNS = "m." + MessageRows.COLUMNS.replace(", ", ", m.");

  /**
   * The record: {@code o.keep AND h.write_seq > GREATEST(h.delivered_seq, o.d)} keeps a lease, and
   * {@code o.d > h.delivered_seq} moved the cursor. A kept lease with its kept part left stays as
   * it is: the row's indexed due_at does not change, so PostgreSQL updates it on its page (HOT)
   * without touching an index.
   *
   * <p>The heads are locked in the arrays' order, which is sorted by key (the order writers lock
   * heads in), by a locking lookup per element through the primary key. A plain {@code UPDATE ...
   * FROM unnest(...)} locks in the order of its join, which PostgreSQL plans as a hash join over a
   * sequential scan of the heads (seen on 200 heads, analyzed or not): heap order, so a writer of
   * two aggregates and the record of both could each hold one and wait for the other (deadlocks
   * seen in the inbox kill test). {@code OFFSET 0} keeps the subquery one unit, so that its locks
   * follow the arrays whatever the join around it. The update still finds its rows by key: the lock
   * taken first only fixes the order; a row a writer changed meanwhile is updated in its newest
   * version, as any update at READ COMMITTED does (an update by the {@code ctid} the lock returned
   * would miss it: that version is not in the statement's snapshot).
   */
  private static final String RECORD =
      """
      UPDATE {heads} h SET
        claimed_by = CASE WHEN o.keep AND h.write_seq > GREATEST(h.delivered_seq, o.d)
          THEN h.claimed_by ELSE NULL END,
        available_at = CASE WHEN o.keep AND h.write_seq > GREATEST(h.delivered_seq, o.d)
            AND h.available_at >= statement_timestamp() + make_interval(secs => ?::float8)
          THEN h.available_at
          ELSE statement_timestamp() + make_interval(secs =>
            CASE WHEN o.keep AND h.write_seq > GREATEST(h.delivered_seq, o.d)
              THEN ?::float8 ELSE o.after END) END,
        attempts = CASE WHEN o.failed THEN o.attempts WHEN o.d > h.delivered_seq THEN 0
          ELSE h.attempts END,
        last_error = CASE WHEN o.failed THEN o.error WHEN o.d > h.delivered_seq THEN NULL
          ELSE h.last_error END,
        held = o.held, delivered_seq = GREATEST(h.delivered_seq, o.d),
        published_seq = CASE WHEN o.p > h.delivered_seq THEN GREATEST(h.published_seq, o.p)
          ELSE h.published_seq END
      FROM (SELECT o.* FROM unnest(?::varchar[], ?::varchar[], ?::bigint[], ?::bigint[],
            ?::boolean[], ?::float8[], ?::boolean[], ?::int4[], ?::text[], ?::boolean[],
            ?::bigint[])
          AS o(t, i, token, d, keep, after, failed, attempts, error, held, p)
        CROSS JOIN LATERAL (SELECT 1 FROM {heads}
          WHERE aggregate_type = o.t AND aggregate_id = o.i FOR NO KEY UPDATE) k OFFSET 0) o
      WHERE h.aggregate_type = o.t AND h.aggregate_id = o.i AND h.lease_token = o.token
      RETURNING h.aggregate_type, h.aggregate_id, h.lease_token, h.delivered_seq, h.attempts,
        h.published_seq, h.claimed_by
      """;

  private static final String READ =
      """
      SELECT %s
      FROM unnest(?::varchar[], ?::varchar[], ?::bigint[]) AS r(t, i, d)
      JOIN LATERAL (SELECT * FROM {outbox} x
        WHERE x.aggregate_type = r.t AND x.aggregate_id = r.i AND x.seq > r.d
        ORDER BY x.seq LIMIT ?) m ON true
      ORDER BY m.seq
      """;

  /**
   * The end of the statements that read held heads' next messages: given the heads as {@code r},
   * each reads its share of the limit (the last parameter) behind its cursor through the seq index.
   * A head none of whose messages the statement's snapshot shows (written by a transaction that
   * committed while this statement waited for the head's lock) comes back as one row without a
   * message, to be read again by a statement that sees them.
   */
  private static final String READ_TAIL =
      """
      n AS (SELECT GREATEST(1, ?::int / NULLIF(count(*), 0)) AS each FROM r)
      SELECT r.aggregate_type AS head_type, r.aggregate_id AS head_id,
        r.lease_token AS head_token, r.delivered_seq AS head_cursor,
        r.attempts AS head_attempts, r.published_seq AS head_published, %s
      FROM r CROSS JOIN n
      LEFT JOIN LATERAL (SELECT * FROM {outbox} x
        WHERE x.aggregate_type = r.aggregate_type AND x.aggregate_id = r.aggregate_id
          AND x.seq > r.delivered_seq
        ORDER BY x.seq LIMIT n.each) m ON true
      ORDER BY m.seq
      """;

  /**
   * The claim and the read of every held head's next messages. The due heads are locked once by row
   * address ({@code ARRAY(SELECT ctid ... SKIP LOCKED)}): a join on the key would be planned as a
   * hash join over the whole head table. The heads already held join the claimed ones, and each
   * reads its share of the limit behind its cursor.
   */
  private static final String CLAIM_AND_READ =
      """
      WITH c AS (UPDATE {heads}
        SET lease_token = lease_token + 1, claimed_by = ?,
          available_at = statement_timestamp() + make_interval(secs => ?::float8)
        WHERE ctid = ANY(ARRAY(SELECT ctid FROM {heads}
          WHERE due_at <= statement_timestamp() ORDER BY due_at LIMIT ?
          FOR NO KEY UPDATE SKIP LOCKED))
        RETURNING aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
          published_seq),
      r AS (SELECT * FROM c
        UNION ALL SELECT * FROM unnest(?::varchar[], ?::varchar[], ?::bigint[], ?::bigint[],
          ?::int4[], ?::bigint[])
          AS k(aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
            published_seq)),
      %s
      """;

  /**
   * Records the heads' outcomes ({@code u}), claims new heads for what the kept ones leave of the
   * limit ({@code c}; never one recorded here, whose lease this statement just changed), and reads
   * the next messages of both.
   */
  private static final String RECORD_CLAIM_AND_READ =
      """
      WITH u AS (%s),
      c AS (UPDATE {heads}
        SET lease_token = lease_token + 1, claimed_by = ?,
          available_at = statement_timestamp() + make_interval(secs => ?::float8)
        WHERE ctid = ANY(ARRAY(SELECT d.ctid FROM {heads} d
          WHERE d.due_at <= statement_timestamp() AND NOT EXISTS (SELECT 1 FROM u
            WHERE u.aggregate_type = d.aggregate_type AND u.aggregate_id = d.aggregate_id)
          ORDER BY d.due_at
          LIMIT GREATEST(0, ?::int - (SELECT count(*) FROM u WHERE u.claimed_by IS NOT NULL))
          FOR NO KEY UPDATE SKIP LOCKED))
        RETURNING aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
          published_seq),
      r AS (SELECT aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
          published_seq
        FROM u WHERE claimed_by IS NOT NULL UNION ALL SELECT * FROM c),
      %s
      """;

  private final String update;
  private final String read;
  private final String claimAndRead;
  private final String recordClaimAndRead;

  PostgresHeadStatements(PostgresDialect dialect) {
    String readTail = READ_TAIL.formatted(MESSAGE_COLUMNS);
    this.update = dialect.sql(RECORD);
    this.read = dialect.sql(READ.formatted(MESSAGE_COLUMNS));
    this.claimAndRead = dialect.sql(CLAIM_AND_READ.formatted(readTail));
    this.recordClaimAndRead = dialect.sql(RECORD_CLAIM_AND_READ.formatted(RECORD, readTail));
  }

  /**
   * The claim-and-read statement, for query plans: instance, lease seconds, heads, the six arrays
   * of the heads already held, limit.
   */
  String claimAndReadSql() {
    return claimAndRead;
  }

  /** Every statement, for checks. */
  List<String> statements() {
    return List.of(update, read, claimAndRead, recordClaimAndRead);
  }

  /**
   * Records the changes, claims up to {@code heads} minus the kept heads, and reads the next
   * messages of all held heads, in one statement; its result is read like {@link #claimAndRead}'s.
   */
  PreparedStatement recordClaimAndRead(
      Connection connection,
      List<HeadChange> changes,
      Duration continueFor,
      String instanceId,
      int heads,
      Duration lease,
      int limit)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(recordClaimAndRead);
    try {
      int index = bindRecord(connection, statement, changes, continueFor);
      statement.setString(index++, instanceId);
      statement.setDouble(index++, seconds(lease));
      statement.setInt(index++, heads);
      statement.setInt(index, limit);
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /**
   * Claims up to {@code heads} due heads for {@code instanceId} and reads the next messages of
   * those and of the heads already held, {@code limit} shared among all of them, in one statement.
   *
   * @return the statement, its result read by the caller: per message row, the head's token ({@code
   *     head_token}), cursor ({@code head_cursor}), attempts ({@code head_attempts}) and published
   *     seq ({@code head_published})
   */
  PreparedStatement claimAndRead(
      Connection connection,
      String instanceId,
      int heads,
      Duration lease,
      List<HeadCycle.Held> held,
      int limit)
      throws SQLException {
    int n = held.size();
    String[] types = new String[n];
    String[] ids = new String[n];
    Long[] tokens = new Long[n];
    Long[] cursors = new Long[n];
    Integer[] attempts = new Integer[n];
    Long[] published = new Long[n];
    for (int k = 0; k < n; k++) {
      HeadCycle.Held head = held.get(k);
      types[k] = head.lease().aggregateType();
      ids[k] = head.lease().aggregateId();
      tokens[k] = head.lease().token();
      cursors[k] = head.deliveredSeq();
      attempts[k] = head.attempts();
      published[k] = head.publishedSeq();
    }
    PreparedStatement statement = connection.prepareStatement(claimAndRead);
    try {
      statement.setString(1, instanceId);
      statement.setDouble(2, seconds(lease));
      statement.setInt(3, heads);
      statement.setArray(4, connection.createArrayOf("varchar", types));
      statement.setArray(5, connection.createArrayOf("varchar", ids));
      statement.setArray(6, connection.createArrayOf("bigint", tokens));
      statement.setArray(7, connection.createArrayOf("bigint", cursors));
      statement.setArray(8, connection.createArrayOf("int4", attempts));
      statement.setArray(9, connection.createArrayOf("bigint", published));
      statement.setInt(10, limit);
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /**
   * Binds the record's parameters: the part of a kept lease that must be left for it to stay as it
   * is, the length of a renewed one, then one array per column of the changes.
   *
   * @return the index of the next parameter
   */
  private static int bindRecord(
      Connection connection,
      PreparedStatement statement,
      List<HeadChange> changes,
      Duration continueFor)
      throws SQLException {
    int n = changes.size();
    String[] types = new String[n];
    String[] ids = new String[n];
    Long[] tokens = new Long[n];
    Long[] delivered = new Long[n];
    Boolean[] keep = new Boolean[n];
    Double[] after = new Double[n];
    Boolean[] failed = new Boolean[n];
    Integer[] attempts = new Integer[n];
    String[] errors = new String[n];
    Boolean[] held = new Boolean[n];
    Long[] published = new Long[n];
    for (int k = 0; k < n; k++) {
      HeadChange change = changes.get(k);
      types[k] = change.lease().aggregateType();
      ids[k] = change.lease().aggregateId();
      tokens[k] = change.lease().token();
      delivered[k] = change.deliveredSeq();
      keep[k] = change.keep();
      after[k] = seconds(change.retryAfter());
      failed[k] = change.attempts() != null;
      attempts[k] = change.attempts() == null ? 0 : change.attempts();
      errors[k] = HeadRecorder.storable(change.error());
      held[k] = change.held();
      published[k] = change.publishedSeq();
    }
    Duration lease = continueFor == null ? Duration.ZERO : continueFor;
    statement.setDouble(1, seconds(ClaimRequest.keptPartOf(lease)));
    statement.setDouble(2, seconds(lease));
    statement.setArray(3, connection.createArrayOf("varchar", types));
    statement.setArray(4, connection.createArrayOf("varchar", ids));
    statement.setArray(5, connection.createArrayOf("bigint", tokens));
    statement.setArray(6, connection.createArrayOf("bigint", delivered));
    statement.setArray(7, connection.createArrayOf("boolean", keep));
    statement.setArray(8, connection.createArrayOf("float8", after));
    statement.setArray(9, connection.createArrayOf("boolean", failed));
    statement.setArray(10, connection.createArrayOf("int4", attempts));
    statement.setArray(11, connection.createArrayOf("text", errors));
    statement.setArray(12, connection.createArrayOf("boolean", held));
    statement.setArray(13, connection.createArrayOf("bigint", published));
    return 14;
  }

  /**
   * Applies the changes, in the order given (sorted by key: the order writers lock heads in).
   *
   * @param continueFor how long a kept head's lease lasts from now
   * @return the heads that stay leased to their holder
   */
  List<HeadCycle.Held> update(Connection connection, List<HeadChange> changes, Duration continueFor)
      throws SQLException {
    List<HeadCycle.Held> kept = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(update)) {
      bindRecord(connection, statement, changes, continueFor);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          if (result.getString("claimed_by") != null) {
            kept.add(HeadCycle.Held.read(result, 0));
          }
        }
      }
    }
    return kept;
  }

  /**
   * Reads up to {@code each} messages after the cursor of every head, in seq order.
   *
   * @return the statement's result, read by the caller
   */
  PreparedStatement read(Connection connection, List<HeadCycle.Held> heads, int each)
      throws SQLException {
    int n = heads.size();
    String[] types = new String[n];
    String[] ids = new String[n];
    Long[] delivered = new Long[n];
    for (int k = 0; k < n; k++) {
      HeadCycle.Held head = heads.get(k);
      types[k] = head.lease().aggregateType();
      ids[k] = head.lease().aggregateId();
      delivered[k] = head.deliveredSeq();
    }
    PreparedStatement statement = connection.prepareStatement(read);
    try {
      statement.setArray(1, connection.createArrayOf("varchar", types));
      statement.setArray(2, connection.createArrayOf("varchar", ids));
      statement.setArray(3, connection.createArrayOf("bigint", delivered));
      statement.setInt(4, each);
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  private static double seconds(Duration duration) {
    return duration.toNanos() / 1e9;
  }
}
