package dev.outbox.inbox.internal;

import dev.outbox.IncomingMessage;
import dev.outbox.inbox.InboxHandler;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxOutcome;
import dev.outbox.inbox.InboxResult;
import dev.outbox.inbox.internal.Decision.Position;
import dev.outbox.inbox.internal.Decision.Verdict;
import dev.outbox.inbox.internal.Positions.Locked;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Applies a batch of messages (a consumer's poll) in one transaction with a few round trips for all
 * of them, whatever their number: one locking read of every position the batch names, in key order
 * (and, for aggregates without a row, an insert of an empty one and a second read), the decisions
 * made in memory as each message moves its aggregate's position, the handlers run in the batch's
 * order, and the moved positions and recorded gaps written as JDBC batches at the end. The rule is
 * {@link Decision}'s, the same as for one message; only the round trips differ.
 */
final class BatchApply {

  private static final Comparator<Key> KEY_ORDER =
      Comparator.comparing(Key::aggregateType).thenComparing(Key::aggregateId);

  private final JdbcInbox inbox;
  private final Positions positions;
  private final Listeners listeners;
  private final InboxOptions options;

  BatchApply(JdbcInbox inbox, Positions positions, Listeners listeners, InboxOptions options) {
    this.inbox = inbox;
    this.positions = positions;
    this.listeners = listeners;
    this.options = options;
  }

  List<InboxResult> apply(
      Connection connection, List<IncomingMessage> messages, InboxHandler handler)
      throws SQLException {
    TreeSet<Key> sorted = new TreeSet<>(KEY_ORDER);
    for (IncomingMessage message : messages) {
      if (message.hasSeq()) {
        sorted.add(Key.of(options.source(), message));
      }
    }
    Map<Key, Locked> rows = lock(connection, new ArrayList<>(sorted));
    Map<Key, Position> at = new HashMap<>();
    Map<Key, Position> gaps = new HashMap<>();
    rows.forEach(
        (key, row) -> {
          at.put(key, row.position());
          if (row.hasOpenGap()) {
            gaps.put(key, row.gap());
          }
        });
    Map<Key, Position> moved = new LinkedHashMap<>();
    Map<Key, Position> recorded = new LinkedHashMap<>();
    Map<Key, Position> lowered = new LinkedHashMap<>();
    List<InboxResult> results = new ArrayList<>(messages.size());
    for (IncomingMessage message : messages) {
      if (!message.hasSeq()) {
        results.add(inbox.apply(connection, message, handler));
        continue;
      }
      Key key = Key.of(options.source(), message);
      Position before = at.get(key);
      Verdict verdict = Decision.decide(before, message);
      if (verdict == Verdict.DUPLICATE) {
        results.add(
            listeners.report(inbox.result(InboxOutcome.DUPLICATE, key, message, before, before)));
        continue;
      }
      if (verdict == Verdict.GAP) {
        switch (options.gapPolicy()) {
          case FAIL -> throw inbox.gapFailure(key, message, before);
          case WAIT -> {
            park(key, message, gaps, recorded, lowered);
            results.add(
                listeners.report(inbox.result(InboxOutcome.GAP, key, message, before, before)));
            continue;
          }
          case APPLY -> inbox.warnApplyingOverGap(message, before);
        }
      }
      Position after = new Position(message.epoch(), message.seq());
      Handlers.run(handler, connection, message, options.source());
      at.put(key, after);
      moved.put(key, after);
      results.add(
          listeners.report(inbox.result(InboxOutcome.APPLIED, key, message, before, after)));
    }
    positions.writeAll(connection, moved, recorded, lowered);
    return results;
  }

  /**
   * Locks every position of the batch; an aggregate without a row gets an empty one (position (0,
   * 0), which decides as no row does), inserted in key order and then locked.
   */
  private Map<Key, Locked> lock(Connection connection, List<Key> keys) throws SQLException {
    if (keys.isEmpty()) {
      return Map.of();
    }
    Map<Key, Locked> rows = positions.lockAll(connection, keys);
    List<Key> missing = keys.stream().filter(key -> !rows.containsKey(key)).toList();
    if (!missing.isEmpty()) {
      for (Key key : missing) {
        positions.insertApplied(connection, key, 0, 0);
      }
      rows.putAll(positions.lockAll(connection, missing));
    }
    return rows;
  }

  /** Records a gap unless an earlier one is open; lowers an open one that this message precedes. */
  private static void park(
      Key key,
      IncomingMessage message,
      Map<Key, Position> gaps,
      Map<Key, Position> recorded,
      Map<Key, Position> lowered) {
    Position gap = new Position(message.epoch(), message.seq());
    Position open = gaps.get(key);
    if (open == null) {
      recorded.put(key, gap);
      gaps.put(key, gap);
    } else if (gap.isBefore(open.epoch(), open.seq())) {
      if (recorded.containsKey(key)) {
        recorded.put(key, gap);
      } else {
        lowered.put(key, gap);
      }
      gaps.put(key, gap);
    }
  }
}
