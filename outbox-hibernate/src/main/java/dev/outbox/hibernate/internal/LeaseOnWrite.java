package dev.outbox.hibernate.internal;

import dev.outbox.OutboxMessage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * The write side of the fast path: writes the first row of each aggregate of a flush already leased
 * to the running processor of this JVM, when that aggregate has no unpublished row, so that the
 * processor can publish it from memory right after the commit.
 *
 * <p>One indexed query per flush, after the flush's own statements, finds which of the flush's
 * aggregates already have a pending row (committed, or written earlier in this transaction). A
 * concurrent transaction that changes the same aggregate row waits for this one's commit and then
 * sees its row as pending, so per-aggregate order holds: a leased row blocks its aggregate in the
 * claim, exactly like a claimed one.
 */
final class LeaseOnWrite {

  /** Larger flushes are bulk writes: their rows go the claimed way. */
  static final int MAX_AGGREGATES = 50;

  private final String table;

  /** What the flush writes: its rows, some leased, and the messages to publish after commit. */
  record Leased(List<OutboxRow> rows, List<OutboxMessage> messages, Instant until) {}

  LeaseOnWrite(String table) {
    this.table = table;
  }

  Leased apply(
      SharedSessionContractImplementor session,
      List<OutboxRow> rows,
      OutboxContext.LeaseReceiver receiver,
      Instant now) {
    Map<String, Integer> firstRowOf = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      firstRowOf.putIfAbsent(key(rows.get(i).aggregateType(), rows.get(i).aggregateId()), i);
    }
    if (receiver == null || firstRowOf.size() > MAX_AGGREGATES) {
      return new Leased(rows, List.of(), null);
    }
    Set<String> pending =
        session.doReturningWork(connection -> pendingAggregates(connection, rows, firstRowOf));
    Instant until = now.plus(receiver.lease());
    List<OutboxRow> written = new ArrayList<>(rows);
    List<OutboxMessage> messages = new ArrayList<>();
    firstRowOf.forEach(
        (aggregate, index) -> {
          if (!pending.contains(aggregate)) {
            OutboxRow row = rows.get(index).leasedTo(receiver.instanceId(), until);
            written.set(index, row);
            messages.add(row.message());
          }
        });
    return new Leased(written, messages, until);
  }

  private Set<String> pendingAggregates(
      Connection connection, List<OutboxRow> rows, Map<String, Integer> firstRowOf)
      throws SQLException {
    String sql =
        "SELECT DISTINCT aggregate_type, aggregate_id FROM "
            + table
            + " WHERE status = 'PENDING' AND ("
            + String.join(
                " OR ",
                Collections.nCopies(firstRowOf.size(), "(aggregate_type = ? AND aggregate_id = ?)"))
            + ")";
    Set<String> pending = new HashSet<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = 1;
      for (int row : firstRowOf.values()) {
        statement.setString(index++, rows.get(row).aggregateType());
        statement.setString(index++, rows.get(row).aggregateId());
      }
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          pending.add(key(result.getString(1), result.getString(2)));
        }
      }
    }
    return pending;
  }

  private static String key(String aggregateType, String aggregateId) {
    return aggregateType + '\u0000' + aggregateId;
  }
}
