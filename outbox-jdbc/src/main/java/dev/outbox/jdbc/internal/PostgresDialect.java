package dev.outbox.jdbc.internal;

import dev.outbox.DeliveryMode;
import dev.outbox.OutboxOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * PostgreSQL: native uuid and timestamptz; a flush's heads and rows in one statement; the claim,
 * the read and the record as set-based statements on arrays ({@link PostgresHeadStatements}), one
 * round trip each; deletes through a limited {@code ARRAY(...)} subquery; the vacuum.
 */
final class PostgresDialect extends Dialect {

  // A head is idle when nothing is pending and it is not held: the writer may lease it.
  private static final String UPSERT =
      """
      INSERT INTO {heads} AS h
        (aggregate_type, aggregate_id, write_seq, available_at, claimed_by, lease_token, epoch)
      VALUES %s
      ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET
        claimed_by = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          THEN EXCLUDED.claimed_by ELSE h.claimed_by END,
        lease_token = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          AND EXCLUDED.claimed_by IS NOT NULL THEN h.lease_token + 1 ELSE h.lease_token END,
        available_at = CASE WHEN h.write_seq = h.delivered_seq AND NOT h.held
          THEN EXCLUDED.available_at ELSE h.available_at END,
        write_seq = h.write_seq + EXCLUDED.write_seq
      RETURNING aggregate_type, aggregate_id, write_seq, delivered_seq, lease_token, claimed_by,
        epoch, published_seq
      """;

  /**
   * The upsert as a data-modifying CTE whose {@code RETURNING} gives each head's new {@code
   * write_seq}; the insert takes each row's seq from it ({@code write_seq} minus how many of the
   * flush's rows of that aggregate come after it) and the head's epoch, and the statement returns
   * the heads.
   */
  private static final String FLUSH =
      """
      WITH h AS (%s),
      v (id, aggregate_type, aggregate_id, seq, event_type, content_type, payload, headers,
        occurred_at, created_at, epoch) AS (VALUES %s),
      m AS (INSERT INTO {outbox} (id, aggregate_type, aggregate_id, seq, event_type, content_type,
          payload, headers, occurred_at, created_at, epoch)
        SELECT v.id, v.aggregate_type, v.aggregate_id, h.write_seq - v.seq, v.event_type,
          v.content_type, v.payload, v.headers, v.occurred_at, v.created_at, h.epoch
        FROM v JOIN h ON h.aggregate_type = v.aggregate_type AND h.aggregate_id = v.aggregate_id
        ORDER BY v.aggregate_type, v.aggregate_id, v.seq DESC)
      SELECT aggregate_type, aggregate_id, write_seq, delivered_seq, lease_token, claimed_by,
        epoch, published_seq
      FROM h
      """;

  private static final String UPSERT_ROW =
      "(?, ?, ?, (statement_timestamp() + make_interval(secs => ?)), ?, ?, ?)";
  // The row's epoch (bound as 0 before the upsert gave it one) is left for the head's.
  private static final String FLUSH_ROW =
      "(?::uuid, ?::varchar, ?::varchar, ?::bigint, ?::varchar, ?::varchar, ?::text, ?::text,"
          + " ?::timestamptz, ?::timestamptz, ?::bigint)";

  private final String upsert;
  private final String flush;
  private final Cleanup cleanup;

  PostgresDialect(OutboxOptions options) {
    super(options);
    this.upsert = sql(UPSERT);
    this.flush = sql(FLUSH);
    // ARRAY(...) runs the limited subquery once, then deletes through the primary key.
    this.cleanup =
        new Cleanup(
            sql(
                """
            DELETE FROM {outbox} WHERE id = ANY(ARRAY(
              SELECT m.id FROM {outbox} m JOIN {heads} h
                ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id
              WHERE m.created_at < ? AND m.seq <= h.delivered_seq
              ORDER BY m.created_at LIMIT ?))
            """),
            sql(
                """
            DELETE FROM {outbox} WHERE id = ANY(ARRAY(
              SELECT id FROM {outbox} WHERE created_at < ? ORDER BY created_at LIMIT ?))
            """),
            sql(
                """
            DELETE FROM {heads} WHERE ctid = ANY(ARRAY(
              SELECT ctid FROM {heads}
              WHERE write_seq = delivered_seq AND NOT held AND claimed_by IS NULL
                AND NOT EXISTS (SELECT 1 FROM {outbox} m
                  WHERE m.aggregate_type = {heads}.aggregate_type
                    AND m.aggregate_id = {heads}.aggregate_id)
              LIMIT ?))
            """));
  }

  @Override
  public String migrationResource() {
    return "db/outbox/postgresql/V1__outbox_tables.sql";
  }

  /** Every delivery mode: CDC reads PostgreSQL's logical replication. */
  @Override
  public void checkSupports(DeliveryMode mode) {}

  @Override
  public String toString() {
    return "PostgreSQL";
  }

  @Override
  List<String> writeStatements() {
    return List.of(upsertHeads(2), flushStatement(2, 2));
  }

  // statement_timestamp(), not now(): a business transaction may have begun long before its
  // flush. Not clock_timestamp() either: it is volatile, and the claim's "due_at <= now" could
  // not bound its index scan.
  @Override
  String now() {
    return "statement_timestamp()";
  }

  @Override
  String nowPlus() {
    return "(statement_timestamp() + make_interval(secs => ?))";
  }

  @Override
  void bindDuration(PreparedStatement statement, int index, Duration duration) throws SQLException {
    statement.setDouble(index, duration.toNanos() / 1e9);
  }

  /**
   * Turns JIT compilation off for the transaction, which would otherwise compile such a query every
   * time (measured in version 1: about 450 ms for a query that runs in 3 ms). Needs PostgreSQL 11
   * or newer.
   */
  @Override
  void prepareShortQueries(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET LOCAL jit = off");
    }
  }

  @Override
  String upsertHeads(int rows) {
    return upsert.formatted(repeat(UPSERT_ROW, rows));
  }

  /** The upsert returns the heads: one round trip. */
  @Override
  <T> T upsertAndRead(
      Connection connection,
      PreparedStatement upsert,
      List<HeadUpsert.Part> parts,
      HeadUpsert.Reader<T> reader)
      throws SQLException {
    try (ResultSet rows = upsert.executeQuery()) {
      return reader.read(rows);
    }
  }

  /**
   * A flush of up to {@value OutboxRowWriter#ROWS_PER_STATEMENT} rows: the head upsert and the
   * message insert in one statement, one round trip. The rows are bound with, in place of their
   * seq, how many rows of their aggregate follow them in the flush.
   */
  @Override
  Map<String, HeadUpsert.Written> writeFlush(
      Connection connection, FlushWriter.Flush flush, HeadUpsert heads, OutboxRowWriter rows)
      throws SQLException {
    if (flush.size() > OutboxRowWriter.ROWS_PER_STATEMENT) {
      return super.writeFlush(connection, flush, heads, rows);
    }
    List<HeadUpsert.Part> parts = flush.parts();
    try (PreparedStatement statement =
        connection.prepareStatement(flushStatement(parts.size(), flush.size()))) {
      int index = heads.bind(statement, 1, parts, flush.claimer(), flush.lease());
      rows.bind(statement, index, flush.rowsFromEnd());
      try (ResultSet result = statement.executeQuery()) {
        return HeadUpsert.read(result, parts, flush.claimer());
      }
    }
  }

  private String flushStatement(int heads, int rows) {
    return flush.formatted(upsertHeads(heads), repeat(FLUSH_ROW, rows));
  }

  @Override
  HeadCycle headCycle(HeadRecorder recorder) {
    return new PostgresHeadCycle(this, recorder);
  }

  @Override
  Cleanup cleanup() {
    return cleanup;
  }

  @Override
  TableVacuum vacuum(DataSource connections, long threshold) {
    return new TableVacuum(connections, tables().heads() + ", " + tables().outbox(), threshold);
  }
}
