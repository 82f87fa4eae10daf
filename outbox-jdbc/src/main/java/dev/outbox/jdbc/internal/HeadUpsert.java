package dev.outbox.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The writer's statement on the heads: for each aggregate of a flush, in sorted key order, creates
 * its head or adds the flush's events to its {@code write_seq}, and reads back where the flush's
 * seqs start. The row lock it takes is held until the business transaction ends, so writers of one
 * aggregate take their seqs in commit order and a rollback gives them back.
 *
 * <p>When a processor runs in this JVM, an idle head (nothing pending, no hold) is leased to it in
 * the same statement with a new token (the fast path): its messages are published from memory after
 * the commit. A head that is pending, held or leased keeps its state; its new messages are read by
 * its holder after the record, or by the next claim.
 */
final class HeadUpsert {

  /**
   * One aggregate's part of a flush.
   *
   * @param epoch the epoch of the head if this flush creates it: when its first row was made
   */
  record Part(String aggregateType, String aggregateId, int events, long epoch) {}

  /**
   * Where a flush's messages of one aggregate go.
   *
   * @param firstSeq the seq of its first message
   * @param token the head's lease token after the statement
   * @param leased whether the statement leased the head to the processor of this JVM
   * @param epoch the head's epoch
   * @param publishedSeq the last seq of the head the broker acknowledged: the previous seq of the
   *     flush's first message when the head was idle
   */
  record Written(long firstSeq, long token, boolean leased, long epoch, long publishedSeq) {}

  static final String RETURNED =
      "aggregate_type, aggregate_id, write_seq, delivered_seq, lease_token, claimed_by, epoch,"
          + " published_seq";

  /** Reads the heads a result holds. */
  @FunctionalInterface
  interface Reader<T> {
    T read(ResultSet rows) throws SQLException;
  }

  private final Dialect dialect;

  HeadUpsert(Dialect dialect) {
    this.dialect = dialect;
  }

  /**
   * Runs the upsert on the business transaction's connection, and reads the heads back as the
   * database allows ({@link Dialect#upsertAndRead}).
   *
   * @param parts the flush's aggregates, in sorted key order
   * @param claimer the processor of this JVM to lease idle heads to, or {@code null}
   * @param lease how long such a lease lasts
   * @return per aggregate key ({@link #key})
   */
  Map<String, Written> upsert(
      Connection connection, List<Part> parts, String claimer, Duration lease) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(dialect.upsertHeads(parts.size()))) {
      bind(statement, 1, parts, claimer, lease);
      return dialect.upsertAndRead(
          connection, statement, parts, rows -> read(rows, parts, claimer));
    }
  }

  /**
   * Binds the parameters of {@link Dialect#upsertHeads}: per head its type, id, events, lease
   * duration, claimer, first token and epoch.
   *
   * @return the index of the next parameter
   */
  int bind(PreparedStatement statement, int index, List<Part> parts, String claimer, Duration lease)
      throws SQLException {
    for (Part part : parts) {
      statement.setString(index++, part.aggregateType());
      statement.setString(index++, part.aggregateId());
      statement.setLong(index++, part.events());
      dialect.bindDuration(statement, index++, claimer == null ? Duration.ZERO : lease);
      statement.setString(index++, claimer);
      statement.setLong(index++, claimer == null ? 0 : 1);
      statement.setLong(index++, part.epoch());
    }
    return index;
  }

  /** Reads the heads the statement returned: {@link #RETURNED}. */
  static Map<String, Written> read(ResultSet rows, List<Part> parts, String claimer)
      throws SQLException {
    Map<String, Integer> events = new HashMap<>();
    parts.forEach(part -> events.put(key(part.aggregateType(), part.aggregateId()), part.events()));
    Map<String, Written> written = new HashMap<>();
    while (rows.next()) {
      String key = key(rows.getString("aggregate_type"), rows.getString("aggregate_id"));
      long writeSeq = rows.getLong("write_seq");
      int count = events.get(key);
      // An idle head is never leased: a holder releases a head once nothing is pending. So a head
      // that was idle before this statement (its cursor at the seq before ours) and is leased to
      // our processor now was leased by this statement.
      boolean leased =
          claimer != null
              && claimer.equals(rows.getString("claimed_by"))
              && rows.getLong("delivered_seq") == writeSeq - count;
      written.put(
          key,
          new Written(
              writeSeq - count + 1,
              rows.getLong("lease_token"),
              leased,
              rows.getLong("epoch"),
              rows.getLong("published_seq")));
    }
    return written;
  }

  static String key(String aggregateType, String aggregateId) {
    return aggregateType + '\u0000' + aggregateId;
  }
}
