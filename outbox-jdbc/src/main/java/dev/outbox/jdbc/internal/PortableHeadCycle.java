package dev.outbox.jdbc.internal;

import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * MariaDB/MySQL and H2: the claim is a locking read of the due index range, then one grant per head
 * (a batch); the read is one condition per head; the record is one batched update per head, then a
 * read of the heads that stay leased.
 *
 * <p>On MariaDB an {@code UPDATE} assigns left to right, each assignment seeing the ones before it;
 * {@code delivered_seq}, which the others read, is therefore assigned last.
 */
final class PortableHeadCycle extends HeadCycle {

  private static final String READ_CONDITION =
      "(aggregate_type = ? AND aggregate_id = ? AND seq > ? AND seq <= ?)";
  private static final String KEPT_CONDITION =
      "(aggregate_type = ? AND aggregate_id = ? AND lease_token = ?)";

  private final Dialect dialect;
  private final String lock;
  private final String lease;
  private final String update;
  private final String kept;
  private final String read;

  PortableHeadCycle(Dialect dialect, HeadRecorder recorder) {
    super(dialect, recorder);
    this.dialect = dialect;
    this.lock =
        dialect.sql(
            """
            SELECT aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
              published_seq
            FROM {heads} WHERE due_at <= {now} ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED
            """);
    this.lease =
        dialect.sql(
            """
            UPDATE {heads}
            SET lease_token = lease_token + 1, claimed_by = ?, available_at = {now_plus}
            WHERE aggregate_type = ? AND aggregate_id = ?
            """);
    // One statement for every kind of outcome, so that one batch updates the heads in sorted key
    // order: the same order writers lock them in, so neither waits for the other in a cycle.
    this.update =
        dialect.sql(
            """
            UPDATE {heads} SET
              claimed_by = CASE WHEN ? AND write_seq > GREATEST(delivered_seq, ?)
                THEN claimed_by ELSE NULL END,
              available_at = CASE WHEN ? AND write_seq > GREATEST(delivered_seq, ?)
                THEN {now_plus} ELSE {now_plus} END,
              attempts = CASE WHEN ? THEN ? WHEN ? > delivered_seq THEN 0 ELSE attempts END,
              last_error = CASE WHEN ? THEN ? WHEN ? > delivered_seq
                THEN NULL ELSE last_error END,
              held = ?, published_seq = CASE WHEN ? > delivered_seq
                THEN GREATEST(published_seq, ?) ELSE published_seq END,
              delivered_seq = GREATEST(delivered_seq, ?)
            WHERE aggregate_type = ? AND aggregate_id = ? AND lease_token = ?
            """);
    this.kept =
        dialect.sql(
            """
            SELECT aggregate_type, aggregate_id, lease_token, delivered_seq, attempts,
              published_seq
            FROM {heads} WHERE claimed_by = ? AND
            """);
    this.read = dialect.sql("SELECT " + MessageRows.COLUMNS + " FROM {outbox} WHERE ");
  }

  @Override
  List<String> statements() {
    return List.of(lock, lease, update, keptSql(2), readSql(2));
  }

  /**
   * A locking read of the due index range, then the grants.
   *
   * @return the heads, each with its new token
   */
  private List<Held> claim(Connection connection, String instanceId, int limit, Duration leaseFor)
      throws SQLException {
    List<Held> locked = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(lock)) {
      statement.setInt(1, limit);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          // the token the grant is about to stamp
          locked.add(Held.read(result, 1));
        }
      }
    }
    if (!locked.isEmpty()) {
      try (PreparedStatement statement = connection.prepareStatement(lease)) {
        for (Held head : locked) {
          statement.setString(1, instanceId);
          dialect.bindDuration(statement, 2, leaseFor);
          statement.setString(3, head.lease().aggregateType());
          statement.setString(4, head.lease().aggregateId());
          statement.addBatch();
        }
        statement.executeBatch();
      }
    }
    return locked;
  }

  /** A claim, then a read. */
  @Override
  List<LeasedHead> claimAndRead(
      Connection connection,
      String instanceId,
      int heads,
      Duration leaseFor,
      List<Held> held,
      int limit)
      throws SQLException {
    List<Held> all = new ArrayList<>(held);
    if (heads > 0) {
      all.addAll(claim(connection, instanceId, heads, leaseFor));
    }
    return read(connection, all, limit);
  }

  /** One range of seqs per head, one condition each. */
  @Override
  PreparedStatement readStatement(Connection connection, List<Held> heads, int each)
      throws SQLException {
    PreparedStatement statement = connection.prepareStatement(readSql(heads.size()));
    int index = 1;
    for (Held head : heads) {
      statement.setString(index++, head.lease().aggregateType());
      statement.setString(index++, head.lease().aggregateId());
      statement.setLong(index++, head.deliveredSeq());
      statement.setLong(index++, head.deliveredSeq() + each);
    }
    return statement;
  }

  private String readSql(int heads) {
    return read
        + " "
        + String.join(" OR ", Collections.nCopies(heads, READ_CONDITION))
        + " ORDER BY seq";
  }

  private String keptSql(int heads) {
    return kept + " (" + String.join(" OR ", Collections.nCopies(heads, KEPT_CONDITION)) + ")";
  }

  /** One batched update per head, then the heads that stay leased. */
  @Override
  List<Held> update(
      Connection connection,
      String instanceId,
      List<HeadChange> changes,
      List<Lease> delivering,
      Duration continueFor)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(update)) {
      for (HeadChange change : changes) {
        bind(statement, change, continueFor);
        statement.addBatch();
      }
      statement.executeBatch();
    }
    return continueFor == null ? List.of() : kept(connection, instanceId, delivering);
  }

  private void bind(PreparedStatement statement, HeadChange change, Duration continueFor)
      throws SQLException {
    int index = 1;
    for (int twice = 0; twice < 2; twice++) {
      statement.setBoolean(index++, change.keep());
      statement.setLong(index++, change.deliveredSeq());
    }
    dialect.bindDuration(statement, index++, change.keep() ? continueFor : Duration.ZERO);
    dialect.bindDuration(statement, index++, change.retryAfter());
    boolean failed = change.attempts() != null;
    statement.setBoolean(index++, failed);
    statement.setInt(index++, failed ? change.attempts() : 0);
    statement.setLong(index++, change.deliveredSeq());
    statement.setBoolean(index++, failed);
    statement.setString(index++, HeadRecorder.storable(change.error()));
    statement.setLong(index++, change.deliveredSeq());
    statement.setBoolean(index++, change.held());
    statement.setLong(index++, change.publishedSeq());
    statement.setLong(index++, change.publishedSeq());
    statement.setLong(index++, change.deliveredSeq());
    HeadRecorder.bindLease(statement, index, change.lease());
  }

  /** The delivered heads that stay leased to the holder: those with messages behind the cursor. */
  private List<Held> kept(Connection connection, String instanceId, List<Lease> delivering)
      throws SQLException {
    if (delivering.isEmpty()) {
      return List.of();
    }
    List<Held> heads = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(keptSql(delivering.size()))) {
      statement.setString(1, instanceId);
      int index = 2;
      for (Lease lease : delivering) {
        index = HeadRecorder.bindLease(statement, index, lease);
      }
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          heads.add(Held.read(result, 0));
        }
      }
    }
    return heads;
  }
}
