package dev.outbox.benchmarks.internal;

/**
 * Committed backlogs written straight with SQL (one {@code INSERT ... SELECT} over {@code
 * generate_series}), so that a drain measures the processor and not the writer: {@code events} rows
 * over {@code aggregates} aggregates, interleaved in position order (aggregate {@code i %
 * aggregates}, sequence {@code i / aggregates}), each with the same {@value
 * BenchAggregate#PAYLOAD_BYTES}-byte JSON payload as {@link BenchAggregate.Happened}.
 */
public final class Backlog {

  private static final int CHUNK = 100_000;

  private Backlog() {}

  /**
   * Inserts pending rows into the outbox table.
   *
   * @param db the database
   * @param aggregateType the aggregate type (Kafka topic, NATS subject token)
   * @param events how many rows
   * @param aggregates over how many aggregates
   */
  public static void pending(BenchDatabase db, String aggregateType, int events, int aggregates) {
    insert(db, BenchDatabase.OUTBOX, aggregateType, events, aggregates, false);
  }

  /**
   * Inserts rows into a table shaped like the outbox table.
   *
   * @param db the database
   * @param table the table
   * @param aggregateType the aggregate type
   * @param events how many rows
   * @param aggregates over how many aggregates
   * @param published whether the rows are {@code PUBLISHED} (retained) rather than {@code PENDING}
   */
  public static void insert(
      BenchDatabase db,
      String table,
      String aggregateType,
      int events,
      int aggregates,
      boolean published) {
    String sql =
        "INSERT INTO "
            + table
            + " (id, aggregate_type, aggregate_id, event_type, content_type, payload, headers,"
            + " occurred_at, created_at, status, attempts, next_attempt_at, published_at)"
            + " SELECT gen_random_uuid(), ?, k.id, '"
            + BenchAggregate.Happened.TYPE
            + "', 'application/json', k.head || repeat('x', "
            + BenchAggregate.PAYLOAD_BYTES
            + " - length(k.head) - 2) || '\"}', '{}', now(), now(), ?, 0, now(), "
            + (published ? "now()" : "NULL")
            + " FROM generate_series(?::bigint, ?::bigint) AS g(i) CROSS JOIN LATERAL (SELECT"
            + " 'agg-' || (g.i % ?) AS id, '{\"aggregateId\":\"agg-' || (g.i % ?) ||"
            + " '\",\"sequence\":' || (g.i / ?) || ',\"padding\":\"' AS head) k ORDER BY g.i";
    String status = published ? "PUBLISHED" : "PENDING";
    for (long from = 0; from < events; from += CHUNK) {
      long to = Math.min(events, from + CHUNK) - 1;
      db.update(sql, aggregateType, status, from, to, aggregates, aggregates, aggregates);
    }
    db.execute("ANALYZE " + table);
  }
}
