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

  /** One aggregate's part of a flush. */
  record Part(String aggregateType, String aggregateId, int events) {}

  /**
   * Where a flush's messages of one aggregate go.
   *
   * @param firstSeq the seq of its first message
   * @param token the head's lease token after the statement
   * @param leased whether the statement leased the head to the processor of this JVM
   */
  record Written(long firstSeq, long token, boolean leased) {}

  static final String RETURNED =
      "aggregate_type, aggregate_id, write_seq, delivered_seq, lease_token, claimed_by";

  private final Database database;
  private final String table;

  HeadUpsert(Database database, String table) {
    this.database = database;
    this.table = table;
  }

  /**
   * Runs the upsert on the business transaction's connection.
   *
   * @param parts the flush's aggregates, in sorted key order
   * @param claimer the processor of this JVM to lease idle heads to, or {@code null}
   * @param lease how long such a lease lasts
   * @return per aggregate key ({@link #key})
   */
  Map<String, Written> upsert(
      Connection connection, List<Part> parts, String claimer, Duration lease) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(upsertSql(parts.size()))) {
      bind(statement, 1, parts, claimer, lease);
      if (database == Database.POSTGRESQL) {
        try (ResultSet rows = statement.executeQuery()) {
          return read(rows, parts, claimer);
        }
      }
      executeUpdate(statement);
    }
    try (PreparedStatement select = connection.prepareStatement(selectSql(parts.size()))) {
      int index = 1;
      for (Part part : parts) {
        select.setString(index++, part.aggregateType());
        select.setString(index++, part.aggregateId());
      }
      try (ResultSet rows = select.executeQuery()) {
        return read(rows, parts, claimer);
      }
    }
  }

  /**
   * Runs the upsert. H2's {@code MERGE} is not atomic: two transactions that create the same head
   * at once both insert, and the later one fails on the primary key. The statement alone rolled
   * back, so it runs again and then finds the head.
   */
  private void executeUpdate(PreparedStatement statement) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        statement.executeUpdate();
        return;
      } catch (SQLException e) {
        if (database != Database.H2 || !"23505".equals(e.getSQLState()) || attempt == 3) {
          throw e;
        }
      }
    }
  }

  /**
   * Binds the parameters of {@link #upsertSql}.
   *
   * @return the index of the next parameter
   */
  int bind(PreparedStatement statement, int index, List<Part> parts, String claimer, Duration lease)
      throws SQLException {
    for (Part part : parts) {
      statement.setString(index++, part.aggregateType());
      statement.setString(index++, part.aggregateId());
      statement.setLong(index++, part.events());
      database.bindDuration(statement, index++, claimer == null ? Duration.ZERO : lease);
      statement.setString(index++, claimer);
      statement.setLong(index++, claimer == null ? 0 : 1);
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
      written.put(key, new Written(writeSeq - count + 1, rows.getLong("lease_token"), leased));
    }
    return written;
  }

  /** The upsert of {@code rows} heads; on PostgreSQL it returns {@link #RETURNED} of each. */
  String upsertSql(int rows) {
    String idle = "h.write_seq = h.delivered_seq AND NOT h.held";
    return switch (database) {
      case POSTGRESQL ->
          "INSERT INTO "
              + table
              + " AS h (aggregate_type, aggregate_id, write_seq, available_at, claimed_by,"
              + " lease_token) VALUES "
              + values(rows, "(?, ?, ?, " + database.nowPlus() + ", ?, ?)")
              + " ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET"
              + " claimed_by = CASE WHEN "
              + idle
              + " THEN EXCLUDED.claimed_by ELSE h.claimed_by END,"
              + " lease_token = CASE WHEN "
              + idle
              + " AND EXCLUDED.claimed_by IS NOT NULL THEN h.lease_token + 1"
              + " ELSE h.lease_token END,"
              + " available_at = CASE WHEN "
              + idle
              + " THEN EXCLUDED.available_at ELSE h.available_at END,"
              + " write_seq = h.write_seq + EXCLUDED.write_seq"
              + " RETURNING "
              + RETURNED;
      // MariaDB assigns left to right, each assignment seeing the ones before it: write_seq,
      // which the others test, is assigned last.
      case MARIADB ->
          "INSERT INTO "
              + table
              + " (aggregate_type, aggregate_id, write_seq, available_at, claimed_by, lease_token)"
              + " VALUES "
              + values(rows, "(?, ?, ?, " + database.nowPlus() + ", ?, ?)")
              + " ON DUPLICATE KEY UPDATE"
              + " claimed_by = IF(write_seq = delivered_seq AND NOT held, VALUES(claimed_by),"
              + " claimed_by),"
              + " lease_token = IF(write_seq = delivered_seq AND NOT held"
              + " AND VALUES(claimed_by) IS NOT NULL, lease_token + 1, lease_token),"
              + " available_at = IF(write_seq = delivered_seq AND NOT held,"
              + " VALUES(available_at), available_at),"
              + " write_seq = write_seq + VALUES(write_seq)";
      case H2 ->
          "MERGE INTO "
              + table
              + " h USING (VALUES "
              + values(
                  rows,
                  "(CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT),"
                      + " DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP),"
                      + " CAST(? AS VARCHAR(100)), CAST(? AS BIGINT))")
              + ") AS v(t, i, n, a, c, k) ON h.aggregate_type = v.t AND h.aggregate_id = v.i"
              + " WHEN MATCHED THEN UPDATE SET"
              + " claimed_by = CASE WHEN "
              + idle
              + " THEN v.c ELSE h.claimed_by END,"
              + " lease_token = CASE WHEN "
              + idle
              + " AND v.c IS NOT NULL THEN h.lease_token + 1 ELSE h.lease_token END,"
              + " available_at = CASE WHEN "
              + idle
              + " THEN v.a ELSE h.available_at END,"
              + " write_seq = h.write_seq + v.n"
              + " WHEN NOT MATCHED THEN INSERT (aggregate_type, aggregate_id, write_seq,"
              + " available_at, claimed_by, lease_token) VALUES (v.t, v.i, v.n, v.a, v.c, v.k)";
    };
  }

  private String selectSql(int rows) {
    return "SELECT "
        + RETURNED
        + " FROM "
        + table
        + " WHERE "
        + String.join(
            " OR ",
            java.util.Collections.nCopies(rows, "(aggregate_type = ? AND aggregate_id = ?)"));
  }

  private static String values(int rows, String row) {
    return row + (", " + row).repeat(rows - 1);
  }

  static String key(String aggregateType, String aggregateId) {
    return aggregateType + '\u0000' + aggregateId;
  }
}
