package dev.outbox.jdbc.internal;

import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * What head outcomes ask, in the caller's transaction: the changes of the heads (applied by the
 * database's {@link HeadCycle}), the copies of dead letters, and the renewal of leases. Every
 * statement matches the head by its key and the outcome's lease token, so a holder whose lease was
 * taken over changes nothing; the cursor only moves forward. A delivered head with messages behind
 * its cursor stays leased to its holder when asked (a continuation), all others are released;
 * whoever releases a head decides from its locked, latest {@code write_seq}, so a message a writer
 * committed meanwhile is never left without a holder or a claim.
 */
final class HeadRecorder {

  private final Dialect dialect;
  private final String copyToDeadLetters;
  private final String deleteMessage;
  private final String renew;

  HeadRecorder(Dialect dialect) {
    this.dialect = dialect;
    this.copyToDeadLetters =
        dialect.sql(
            """
            INSERT INTO {dead_letters} (id, aggregate_type, aggregate_id, seq, event_type,
              content_type, payload, headers, occurred_at, created_at, attempts, last_error,
              dead_lettered_at, epoch)
            SELECT m.id, m.aggregate_type, m.aggregate_id, m.seq, m.event_type, m.content_type,
              m.payload, m.headers, m.occurred_at, m.created_at, ?, ?, ?, m.epoch
            FROM {outbox} m JOIN {heads} h
              ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id
            WHERE m.aggregate_type = ? AND m.aggregate_id = ? AND m.seq = ?
              AND h.lease_token = ? AND h.delivered_seq < m.seq
            """);
    this.deleteMessage =
        dialect.sql(
            "DELETE FROM {outbox} WHERE aggregate_type = ? AND aggregate_id = ? AND seq = ?");
    this.renew =
        dialect.sql(
            """
            UPDATE {heads} SET available_at = {now_plus}
            WHERE aggregate_type = ? AND aggregate_id = ? AND lease_token = ? AND claimed_by = ?
            """);
  }

  /** Every statement, for checks. */
  List<String> statements() {
    return List.of(copyToDeadLetters, deleteMessage, renew);
  }

  /**
   * Whether one statement can record the outcomes: none moves a message to the dead letters.
   *
   * @param outcomes the outcomes
   * @return {@code true} when no outcome is a dead letter
   */
  static boolean withoutDeadLetters(Collection<? extends HeadOutcome> outcomes) {
    return outcomes.stream().noneMatch(o -> o instanceof HeadOutcome.DeadLettered);
  }

  /**
   * What the outcomes ask of their heads, in sorted key order: one lock order for every transaction
   * that locks several heads (writers lock theirs sorted too), so none waits for another in a
   * cycle. A dead letter is copied (and, without the hold, its row deleted) here, in the caller's
   * transaction; its change is left out when the lease was taken over.
   *
   * @param connection the transaction; not used when there is no dead letter
   * @param keep whether delivered heads with more messages stay leased
   * @param delivering receives the leases of the delivered heads
   */
  List<HeadChange> changes(
      Connection connection,
      Collection<? extends HeadOutcome> outcomes,
      boolean keep,
      List<Lease> delivering)
      throws SQLException {
    List<HeadOutcome> sorted = new ArrayList<>(outcomes);
    sorted.sort(
        Comparator.comparing((HeadOutcome o) -> o.lease().aggregateType())
            .thenComparing(o -> o.lease().aggregateId()));
    List<HeadChange> changes = new ArrayList<>(sorted.size());
    for (HeadOutcome outcome : sorted) {
      Lease lease = outcome.lease();
      if (outcome instanceof HeadOutcome.Delivered d) {
        changes.add(change(d, d.deliveredSeq(), keep, Duration.ZERO, null, null, false));
        delivering.add(lease);
      } else if (outcome instanceof HeadOutcome.Released r) {
        changes.add(change(r, r.deliveredSeq(), false, Duration.ZERO, null, null, false));
      } else if (outcome instanceof HeadOutcome.Retry r) {
        changes.add(
            change(r, r.deliveredSeq(), false, r.retryAfter(), r.attempts(), r.error(), false));
      } else if (outcome instanceof HeadOutcome.DeadLettered d
          && copyToDeadLetters(connection, d)) {
        if (d.hold()) {
          changes.add(
              change(d, d.deliveredSeq(), false, Duration.ZERO, d.attempts(), d.error(), true));
        } else {
          // The cursor passes the dead letter, the published seq does not: the next message
          // tells consumers that this seq will never come.
          deleteMessage(connection, d);
          changes.add(change(d, d.seq(), keep, Duration.ZERO, null, null, false));
          delivering.add(lease);
        }
      }
    }
    return changes;
  }

  /**
   * The change of an outcome's head, the cursor moved to {@code deliveredSeq}. What the broker
   * acknowledged is always the outcome's own delivered seq: a dead letter's seq, which the cursor
   * may pass, never was.
   */
  private static HeadChange change(
      HeadOutcome outcome,
      long deliveredSeq,
      boolean keep,
      Duration retryAfter,
      Integer attempts,
      String error,
      boolean held) {
    return new HeadChange(
        outcome.lease(),
        deliveredSeq,
        outcome.deliveredSeq(),
        keep,
        retryAfter,
        attempts,
        error,
        held);
  }

  /**
   * Extends leases still held by {@code instanceId}.
   *
   * @return the leases that were not extended: taken over or released
   */
  List<Lease> renew(
      Connection connection, String instanceId, Collection<Lease> leases, Duration leaseFor)
      throws SQLException {
    List<Lease> lost = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(renew)) {
      for (Lease lease : leases) {
        dialect.bindDuration(statement, 1, leaseFor);
        bindLease(statement, 2, lease);
        statement.setString(5, instanceId);
        // One by one: the count of each update says whether that lease still holds.
        if (statement.executeUpdate() == 0) {
          lost.add(lease);
        }
      }
    }
    return lost;
  }

  private boolean copyToDeadLetters(Connection connection, HeadOutcome.DeadLettered d)
      throws SQLException {
    // One by one: MariaDB's bulk protocol refuses a batched INSERT ... SELECT.
    try (PreparedStatement copy = connection.prepareStatement(copyToDeadLetters)) {
      copy.setInt(1, d.attempts());
      copy.setString(2, storable(d.error()));
      dialect.bindInstant(copy, 3, d.deadLetteredAt());
      copy.setString(4, d.lease().aggregateType());
      copy.setString(5, d.lease().aggregateId());
      copy.setLong(6, d.seq());
      copy.setLong(7, d.lease().token());
      return copy.executeUpdate() == 1;
    }
  }

  private void deleteMessage(Connection connection, HeadOutcome.DeadLettered d)
      throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(deleteMessage)) {
      delete.setString(1, d.lease().aggregateType());
      delete.setString(2, d.lease().aggregateId());
      delete.setLong(3, d.seq());
      delete.executeUpdate();
    }
  }

  /**
   * Binds a lease: type, id, token.
   *
   * @return the index of the next parameter
   */
  static int bindLease(PreparedStatement statement, int index, Lease lease) throws SQLException {
    statement.setString(index, lease.aggregateType());
    statement.setString(index + 1, lease.aggregateId());
    statement.setLong(index + 2, lease.token());
    return index + 3;
  }

  /**
   * An error text every database stores: PostgreSQL refuses U+0000 in text, and a broker's error
   * message may contain it. Without this the record of the whole batch would fail.
   */
  static String storable(String error) {
    return error == null ? null : error.replace('\u0000', '\uFFFD');
  }
}
