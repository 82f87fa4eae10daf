package dev.outbox.rabbitmq.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the consumers applied against what the writers committed, from the tables themselves: the
 * outbox's messages, the consumer's effects and its applied log ({@link KillTables}). Exactly once
 * and in order means, for every aggregate: {@code applied_count} is the number of messages
 * committed and {@code last_seq} the last seq; the applied log holds each committed (aggregate,
 * seq) exactly once, with the committed message id, and in seq order by log id (insertion order; a
 * transaction of an aggregate starts after the one before it committed, since the inbox locks the
 * aggregate's position).
 *
 * @param committedMessages messages in the outbox table of the aggregate type
 * @param committedAggregates aggregates with at least one message
 * @param applied the sum of {@code applied_count}
 * @param logRows rows in the applied log
 * @param logRowsRedelivered rows of the applied log whose delivery the broker flagged as
 *     redelivered (a killed consumer's unacknowledged messages, or messages requeued after a gap)
 * @param countMismatches aggregates whose {@code applied_count} or {@code last_seq} is not what was
 *     committed
 * @param appliedTwice (aggregate, seq) pairs with more than one row in the log
 * @param neverApplied committed messages with no row in the log
 * @param outOfOrder log rows whose seq is not the next of their aggregate in log order
 * @param unknown log rows that match no committed message, or carry another message id
 * @param notNumberedFromOne aggregates whose committed seqs are not 1, 2, ... n (the outbox's part)
 * @param appliedByConsumer log rows per consumer instance
 */
public record AppliedCheck(
    long committedMessages,
    int committedAggregates,
    long applied,
    long logRows,
    long logRowsRedelivered,
    List<String> countMismatches,
    List<String> appliedTwice,
    List<String> neverApplied,
    List<String> outOfOrder,
    List<String> unknown,
    List<String> notNumberedFromOne,
    Map<String, Integer> appliedByConsumer) {

  /** One row of the applied log. */
  private record Logged(
      long logId, String aggregateId, long seq, String messageId, String by, boolean redelivered) {}

  /**
   * Reads the tables and compares.
   *
   * @param connection a connection to the test database
   * @param tables the run's tables
   * @param aggregateType the aggregate type the writers wrote
   * @return the comparison
   */
  public static AppliedCheck run(Connection connection, KillTables tables, String aggregateType)
      throws SQLException {
    Map<String, TreeMap<Long, String>> committed = committed(connection, tables, aggregateType);
    List<String> countMismatches = new ArrayList<>();
    List<String> notNumberedFromOne = new ArrayList<>();
    long applied = 0;
    Map<String, long[]> effects = effects(connection, tables);
    for (Map.Entry<String, long[]> effect : effects.entrySet()) {
      TreeMap<Long, String> messages = committed.getOrDefault(effect.getKey(), new TreeMap<>());
      long count = effect.getValue()[0];
      long lastSeq = effect.getValue()[1];
      long expectedLast = messages.isEmpty() ? 0 : messages.lastKey();
      applied += count;
      if (count != messages.size() || lastSeq != expectedLast) {
        countMismatches.add(
            String.format(
                "%s: applied_count %d, last_seq %d, but %d messages committed, the last seq %d",
                effect.getKey(), count, lastSeq, messages.size(), expectedLast));
      }
    }
    committed.forEach(
        (aggregate, messages) -> {
          if (!effects.containsKey(aggregate)) {
            countMismatches.add(aggregate + ": committed but has no effect row");
          }
          if (messages.firstKey() != 1 || messages.lastKey() != messages.size()) {
            notNumberedFromOne.add(aggregate + ": seqs " + messages.keySet());
          }
        });

    List<Logged> log = log(connection, tables);
    List<String> appliedTwice = new ArrayList<>();
    List<String> outOfOrder = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    Map<String, Integer> byConsumer = new TreeMap<>();
    Map<String, TreeMap<Long, List<Logged>>> seen = new HashMap<>();
    Map<String, Logged> previous = new HashMap<>();
    for (Logged row : log) {
      byConsumer.merge(row.by(), 1, Integer::sum);
      String id = committed.getOrDefault(row.aggregateId(), new TreeMap<>()).get(row.seq());
      if (!row.messageId().equals(id)) {
        unknown.add(row + ": the committed message of this seq is " + id);
      }
      List<Logged> same =
          seen.computeIfAbsent(row.aggregateId(), a -> new TreeMap<>())
              .computeIfAbsent(row.seq(), s -> new ArrayList<>());
      same.add(row);
      if (same.size() == 2) {
        appliedTwice.add(row.aggregateId() + " seq " + row.seq() + ": " + same);
      }
      Logged before = previous.put(row.aggregateId(), row);
      long expected = before == null ? 1 : before.seq() + 1;
      if (row.seq() != expected) {
        outOfOrder.add(row + " after " + before);
      }
    }
    List<String> neverApplied = new ArrayList<>();
    committed.forEach(
        (aggregate, messages) ->
            messages.forEach(
                (seq, id) -> {
                  if (!seen.getOrDefault(aggregate, new TreeMap<>()).containsKey(seq)) {
                    neverApplied.add(aggregate + " seq " + seq + " (" + id + ")");
                  }
                }));
    return new AppliedCheck(
        committed.values().stream().mapToLong(TreeMap::size).sum(),
        committed.size(),
        applied,
        log.size(),
        log.stream().filter(Logged::redelivered).count(),
        countMismatches,
        appliedTwice,
        neverApplied,
        outOfOrder,
        unknown,
        notNumberedFromOne,
        byConsumer);
  }

  /**
   * The sum of {@code applied_count}, for the drain.
   *
   * @param connection a connection to the test database
   * @param tables the run's tables
   * @return the messages applied so far
   */
  public static long appliedSoFar(Connection connection, KillTables tables) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT coalesce(sum(applied_count), 0) FROM " + tables.effects())) {
      result.next();
      return result.getLong(1);
    }
  }

  /**
   * Consumers that applied a message within the last {@code millis} milliseconds, by the database
   * clock: those handling messages now.
   *
   * @param connection a connection to the test database
   * @param tables the run's tables
   * @param millis how recent
   * @return their instance ids
   */
  public static TreeSet<String> recentlyApplying(
      Connection connection, KillTables tables, long millis) throws SQLException {
    TreeSet<String> consumers = new TreeSet<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT DISTINCT consumer FROM "
                + tables.appliedLog()
                + " WHERE applied_at > clock_timestamp() - ? * interval '1 millisecond'")) {
      statement.setLong(1, millis);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          consumers.add(result.getString(1));
        }
      }
    }
    return consumers;
  }

  private static Map<String, TreeMap<Long, String>> committed(
      Connection connection, KillTables tables, String aggregateType) throws SQLException {
    Map<String, TreeMap<Long, String>> committed = new TreeMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT aggregate_id, seq, id::text FROM "
                + tables.outboxTable()
                + " WHERE aggregate_type = ?")) {
      statement.setString(1, aggregateType);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          committed
              .computeIfAbsent(result.getString(1), a -> new TreeMap<>())
              .put(result.getLong(2), result.getString(3));
        }
      }
    }
    return committed;
  }

  private static Map<String, long[]> effects(Connection connection, KillTables tables)
      throws SQLException {
    Map<String, long[]> effects = new TreeMap<>();
    try (Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT aggregate_id, applied_count, last_seq FROM " + tables.effects())) {
      while (result.next()) {
        effects.put(result.getString(1), new long[] {result.getLong(2), result.getLong(3)});
      }
    }
    return effects;
  }

  private static List<Logged> log(Connection connection, KillTables tables) throws SQLException {
    List<Logged> log = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery(
                "SELECT log_id, aggregate_id, seq, message_id, consumer, redelivered FROM "
                    + tables.appliedLog()
                    + " ORDER BY log_id")) {
      while (result.next()) {
        log.add(
            new Logged(
                result.getLong(1),
                result.getString(2),
                result.getLong(3),
                result.getString(4),
                result.getString(5),
                result.getBoolean(6)));
      }
    }
    return log;
  }
}
