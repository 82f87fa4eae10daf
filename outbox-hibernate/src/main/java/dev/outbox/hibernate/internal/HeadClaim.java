package dev.outbox.hibernate.internal;

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
  record Held(Lease lease, long deliveredSeq, int attempts) {}

  private final Database database;
  private final PostgresHeadStatements postgres;
  private final MessageRows rows;
  private final String messages;
  private final String lockAndLease;
  private final String lock;
  private final String lease;

  HeadClaim(Database database, OutboxOptions options) {
    this.database = database;
    this.postgres = database == Database.POSTGRESQL ? new PostgresHeadStatements(options) : null;
    this.rows = new MessageRows(database);
    this.messages = options.outboxTable();
    String heads = options.headTable();
    String due =
        "SELECT aggregate_type, aggregate_id FROM "
            + heads
            + " WHERE due_at <= "
            + database.now()
            + " ORDER BY due_at LIMIT ?";
    // ARRAY(...) locks the due heads once, then updates them by their row address; a join on the
    // key would be planned as a hash join over the whole head table.
    this.lockAndLease =
        "UPDATE "
            + heads
            + " SET lease_token = lease_token + 1, claimed_by = ?, available_at = "
            + database.nowPlus()
            + " WHERE ctid = ANY(ARRAY("
            + due.replace("SELECT aggregate_type, aggregate_id FROM", "SELECT ctid FROM")
            + " FOR NO KEY UPDATE SKIP LOCKED))"
            + " RETURNING aggregate_type, aggregate_id, lease_token, delivered_seq, attempts";
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

  /** The PostgreSQL claim statement, for query plans: instance, lease seconds, limit. */
  String claimSql() {
    return lockAndLease;
  }

  /**
   * Leases up to {@code limit} due heads to {@code instanceId}.
   *
   * @return the heads, each with its new token
   */
  List<Held> claim(Connection connection, String instanceId, int limit, Duration leaseFor)
      throws SQLException {
    if (database == Database.POSTGRESQL) {
      try (PreparedStatement statement = connection.prepareStatement(lockAndLease)) {
        statement.setString(1, instanceId);
        database.bindDuration(statement, 2, leaseFor);
        statement.setInt(3, limit);
        return held(statement, 0);
      }
    }
    List<Held> locked;
    try (PreparedStatement statement = connection.prepareStatement(lock)) {
      statement.setInt(1, limit);
      locked = held(statement, 1);
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

  /** Reads the heads a statement returns; {@code tokenStep} is added to the token read. */
  private static List<Held> held(PreparedStatement statement, int tokenStep) throws SQLException {
    List<Held> heads = new ArrayList<>();
    try (ResultSet result = statement.executeQuery()) {
      while (result.next()) {
        heads.add(
            new Held(
                new Lease(
                    result.getString("aggregate_type"),
                    result.getString("aggregate_id"),
                    result.getLong("lease_token") + tokenStep),
                result.getLong("delivered_seq"),
                result.getInt("attempts")));
      }
    }
    return heads;
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
