package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Claims due heads and reads the messages behind their cursors, in the caller's transaction.
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
final class HeadClaim {

  /** A head this transaction holds: its lease, its cursor, and the attempts of the next message. */
  record Held(Lease lease, long deliveredSeq, int attempts) {

    /**
     * The head of the current row of a result with {@code aggregate_type}, {@code aggregate_id},
     * {@code lease_token}, {@code delivered_seq} and {@code attempts}.
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
          result.getInt("attempts"));
    }
  }

  private final Database database;
  private final PostgresHeadStatements postgres;
  private final MessageRows rows;
  private final String messages;
  private final String lock;
  private final String lease;

  HeadClaim(Database database, OutboxOptions options) {
    this.database = database;
    this.postgres = database == Database.POSTGRESQL ? new PostgresHeadStatements(options) : null;
    this.rows = new MessageRows(database);
    this.messages = options.outboxTable();
    String heads = options.headTable();
    this.lock =
        "SELECT aggregate_type, aggregate_id, lease_token, delivered_seq, attempts FROM "
            + heads
            + " WHERE due_at <= "
            + database.now()
            + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED";
    this.lease =
        "UPDATE "
            + heads
            + " SET lease_token = lease_token + 1, claimed_by = ?, available_at = "
            + database.nowPlus()
            + " WHERE aggregate_type = ? AND aggregate_id = ?";
  }

  /**
   * The PostgreSQL claim-and-read statement, for query plans: instance, lease seconds, heads, the
   * five arrays of the heads already held, limit.
   */
  String claimSql() {
    return postgres.claimAndReadSql();
  }

  /**
   * Leases up to {@code limit} due heads to {@code instanceId}: a locking read of the due index
   * range, then the grants (MariaDB and H2; PostgreSQL claims in {@link #claimAndRead}).
   *
   * @return the heads, each with its new token
   */
  List<Held> claim(Connection connection, String instanceId, int limit, Duration leaseFor)
      throws SQLException {
    List<Held> locked;
    try (PreparedStatement statement = connection.prepareStatement(lock)) {
      statement.setInt(1, limit);
      locked = held(statement);
    }
    if (!locked.isEmpty()) {
      try (PreparedStatement statement = connection.prepareStatement(lease)) {
        for (Held head : locked) {
          statement.setString(1, instanceId);
          database.bindDuration(statement, 2, leaseFor);
          statement.setString(3, head.lease().aggregateType());
          statement.setString(4, head.lease().aggregateId());
          statement.addBatch();
        }
        statement.executeBatch();
      }
    }
    return locked;
  }

  /** Reads the heads the locking read returns, with the token their grant is about to stamp. */
  private static List<Held> held(PreparedStatement statement) throws SQLException {
    List<Held> heads = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        heads.add(Held.read(result, 1));
      }
    }
    return heads;
  }

  /**
   * Claims up to {@code heads} due heads and reads the next messages of those and of {@code held},
   * {@code limit} shared among them: on PostgreSQL in one statement, elsewhere a claim and a read.
   *
   * @return the heads with their messages; a head with none is left out
   */
  List<LeasedHead> claimAndRead(
      Connection connection,
      String instanceId,
      int heads,
      Duration leaseFor,
      List<Held> held,
      int limit)
      throws SQLException {
    if (postgres == null) {
      List<Held> all = new ArrayList<>(held);
      if (heads > 0) {
        all.addAll(claim(connection, instanceId, heads, leaseFor));
      }
      return read(connection, all, limit);
    }
    return leasedHeads(
        connection,
        postgres.claimAndRead(connection, instanceId, heads, leaseFor, held, limit),
        limit);
  }

  /**
   * PostgreSQL: records the changes, claims new heads for what the kept ones leave of {@code
   * limit}, and reads the next messages of every head held, in one statement.
   *
   * @return the heads with their messages; a head with none is left out
   */
  List<LeasedHead> recordClaimAndRead(
      Connection connection,
      List<HeadChange> changes,
      Duration continueFor,
      String instanceId,
      int heads,
      Duration leaseFor,
      int limit)
      throws SQLException {
    return leasedHeads(
        connection,
        postgres.recordClaimAndRead(
            connection, changes, continueFor, instanceId, heads, leaseFor, limit),
        limit);
  }

  /**
   * Runs a statement of {@link PostgresHeadStatements} that reads heads' messages; heads it held
   * but showed no message of are read again by a statement of their own, which sees what committed
   * meanwhile.
   */
  private List<LeasedHead> leasedHeads(Connection connection, PreparedStatement read, int limit)
      throws SQLException {
    Map<String, Lease> leases = new LinkedHashMap<>();
    Map<String, List<OutboxMessage>> byHead = new HashMap<>();
    List<Held> unseen = new ArrayList<>();
    try (PreparedStatement statement = read;
        ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        Lease lease =
            new Lease(
                result.getString("head_type"),
                result.getString("head_id"),
                result.getLong("head_token"));
        long cursor = result.getLong("head_cursor");
        int attempts = result.getInt("head_attempts");
        if (result.getObject("id") == null) {
          unseen.add(new Held(lease, cursor, attempts));
          continue;
        }
        String key = key(lease);
        leases.putIfAbsent(key, lease);
        long seq = result.getLong("seq");
        byHead
            .computeIfAbsent(key, k -> new ArrayList<>())
            .add(rows.read(result, seq == cursor + 1 ? attempts : 0));
      }
    }
    List<LeasedHead> leased = new ArrayList<>(leases.size() + unseen.size());
    leases.forEach((key, lease) -> leased.add(new LeasedHead(lease, byHead.get(key))));
    if (!unseen.isEmpty()) {
      int each = Math.max(1, limit / (leases.size() + unseen.size()));
      leased.addAll(read(connection, unseen, each * unseen.size()));
    }
    return leased;
  }

  /**
   * Reads the next messages of each head: an equal share of {@code limit}, at least one each.
   *
   * @return the heads with their messages, in the order given; a head with none is left out
   */
  List<LeasedHead> read(Connection connection, List<Held> heads, int limit) throws SQLException {
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
        byHead
            .computeIfAbsent(key, k -> new ArrayList<>())
            .add(rows.read(result, seq == head.deliveredSeq() + 1 ? head.attempts() : 0));
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

  /** One range of seqs per head: on PostgreSQL a join on arrays, elsewhere one condition each. */
  private PreparedStatement readStatement(Connection connection, List<Held> heads, int each)
      throws SQLException {
    if (postgres != null) {
      return postgres.read(connection, heads, each);
    }
    String sql =
        "SELECT "
            + MessageRows.COLUMNS
            + " FROM "
            + messages
            + " WHERE "
            + String.join(
                " OR ",
                Collections.nCopies(
                    heads.size(),
                    "(aggregate_type = ? AND aggregate_id = ? AND seq > ? AND seq <= ?)"))
            + " ORDER BY seq";
    PreparedStatement statement = connection.prepareStatement(sql);
    int index = 1;
    for (Held head : heads) {
      statement.setString(index++, head.lease().aggregateType());
      statement.setString(index++, head.lease().aggregateId());
      statement.setLong(index++, head.deliveredSeq());
      statement.setLong(index++, head.deliveredSeq() + each);
    }
    return statement;
  }

  private static String key(Lease lease) {
    return HeadUpsert.key(lease.aggregateType(), lease.aggregateId());
  }
}
