package dev.outbox.jdbc.internal;

import dev.outbox.OutboxOptions;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * H2 2.x: native UUID and TIMESTAMP WITH TIME ZONE; the head upsert is a {@code MERGE} followed by
 * a select, run again when a concurrent first write of the same head wins; deletes take {@code
 * FETCH FIRST ? ROWS ONLY}.
 */
final class H2Dialect extends PortableDialect {

  private static final String UPSERT =
      """
      MERGE INTO {heads} h USING (VALUES %s) AS v(t, i, n, a, c, k, e)
      ON h.aggregate_type = v.t AND h.aggregate_id = v.i
      WHEN MATCHED THEN UPDATE SET
        claimed_by = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          THEN v.c ELSE h.claimed_by END,
        lease_token = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          AND v.c IS NOT NULL THEN h.lease_token + 1 ELSE h.lease_token END,
        available_at = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          THEN v.a ELSE h.available_at END,
        write_seq = h.write_seq + v.n
      WHEN NOT MATCHED THEN INSERT
        (aggregate_type, aggregate_id, write_seq, available_at, claimed_by, lease_token, epoch)
        VALUES (v.t, v.i, v.n, v.a, v.c, v.k, v.e)
      """;

  private static final String UPSERT_ROW =
      "(CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(255)), CAST(? AS BIGINT),"
          + " DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP),"
          + " CAST(? AS VARCHAR(100)), CAST(? AS BIGINT), CAST(? AS BIGINT))";

  /** How often an upsert runs that lost a concurrent first write of its head. */
  private static final int UPSERT_ATTEMPTS = 3;

  private final Cleanup cleanup;

  H2Dialect(OutboxOptions options) {
    super(options, UPSERT, UPSERT_ROW);
    this.cleanup =
        new Cleanup(
            sql(
                """
            DELETE FROM {outbox}
            WHERE created_at < ? AND seq <= (SELECT h.delivered_seq FROM {heads} h
              WHERE h.aggregate_type = {outbox}.aggregate_type
                AND h.aggregate_id = {outbox}.aggregate_id)
            FETCH FIRST ? ROWS ONLY
            """),
            sql("DELETE FROM {outbox} WHERE created_at < ? FETCH FIRST ? ROWS ONLY"),
            sql(
                """
            DELETE FROM {heads}
            WHERE write_seq = delivered_seq AND NOT held AND claimed_by IS NULL
              AND NOT EXISTS (SELECT 1 FROM {outbox} m
                WHERE m.aggregate_type = {heads}.aggregate_type
                  AND m.aggregate_id = {heads}.aggregate_id)
            FETCH FIRST ? ROWS ONLY
            """));
  }

  @Override
  public String migrationResource() {
    return "db/outbox/h2/V1__outbox_tables.sql";
  }

  @Override
  public String toString() {
    return "H2";
  }

  @Override
  String now() {
    return "CURRENT_TIMESTAMP";
  }

  @Override
  String nowPlus() {
    return "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
  }

  /**
   * H2's {@code MERGE} is not atomic: two transactions that create the same head at once both
   * insert, and the later one fails on the primary key. The statement alone rolled back, so it runs
   * again and then finds the head.
   */
  @Override
  void executeUpsert(PreparedStatement upsert) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        upsert.executeUpdate();
        return;
      } catch (SQLException e) {
        if (!"23505".equals(e.getSQLState()) || attempt == UPSERT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  @Override
  Cleanup cleanup() {
    return cleanup;
  }
}
