package dev.outbox.benchmarks.internal;

/**
 * Committed backlogs written straight with SQL, so that a drain measures the processor and not the
 * writer: {@code events} messages over {@code aggregates} aggregates, interleaved in position order
 * (event {@code i} goes to aggregate {@code i % aggregates} as its step {@code i / aggregates}),
 * each with the same {@value BenchAggregate#PAYLOAD_BYTES}-byte JSON payload as {@link
 * BenchAggregate.Happened}, and the heads that go with them.
 *
 * <p>The messages are appended behind what each aggregate already holds: their {@code seq}s
 * continue from the head's {@code write_seq} (1, 2, 3, ... for a new aggregate), written with one
 * {@code INSERT ... SELECT} over {@code generate_series} per 100,000 rows; then one upsert adds
 * each aggregate's count to its head's {@code write_seq}, and for a delivered backlog moves its
 * cursor {@code delivered_seq} there too.
 */
public final class Backlog {

  private static final int CHUNK = 100_000;

  private Backlog() {}

  /**
   * Appends pending messages: their heads' cursors stay where they were ({@code delivered_seq} 0
   * for a new aggregate, {@code write_seq} the count).
   *
   * @param db the database
   * @param aggregateType the aggregate type (Kafka topic, NATS subject token)
   * @param events how many messages
   * @param aggregates over how many aggregates
   */
  public static void pending(BenchDatabase db, String aggregateType, int events, int aggregates) {
    append(db, aggregateType, events, aggregates, false);
  }

  /**
   * Appends messages that count as delivered (retained until cleanup): their heads' cursors move to
   * the new {@code write_seq}. The aggregates must have nothing pending.
   *
   * @param db the database
   * @param aggregateType the aggregate type
   * @param events how many messages
   * @param aggregates over how many aggregates
   */
  public static void delivered(BenchDatabase db, String aggregateType, int events, int aggregates) {
    append(db, aggregateType, events, aggregates, true);
  }

  private static void append(
      BenchDatabase db, String aggregateType, int events, int aggregates, boolean delivered) {
    // The seqs are taken from the heads as they were before this backlog: the heads are updated
    // once every chunk is in.
    String messages =
        "INSERT INTO "
            + BenchDatabase.OUTBOX
            + " (id, aggregate_type, aggregate_id, seq, event_type, content_type, payload,"
            + " headers, occurred_at, created_at)"
            + " SELECT gen_random_uuid(), ?, k.id, coalesce(h.write_seq, 0) + g.i / ? + 1, '"
            + BenchAggregate.Happened.TYPE
            + "', 'application/json', k.head || repeat('x', "
            + BenchAggregate.PAYLOAD_BYTES
            + " - length(k.head) - 2) || '\"}', '{}', now(), now()"
            + " FROM generate_series(?::bigint, ?::bigint) AS g(i) CROSS JOIN LATERAL (SELECT"
            + " 'agg-' || (g.i % ?) AS id, '{\"aggregateId\":\"agg-' || (g.i % ?) ||"
            + " '\",\"sequence\":' || (g.i / ?) || ',\"padding\":\"' AS head) k LEFT JOIN "
            + BenchDatabase.HEADS
            + " h ON h.aggregate_type = ? AND h.aggregate_id = k.id ORDER BY g.i";
    for (long from = 0; from < events; from += CHUNK) {
      long to = Math.min(events, from + CHUNK) - 1;
      db.update(
          messages,
          aggregateType,
          aggregates,
          from,
          to,
          aggregates,
          aggregates,
          aggregates,
          aggregateType);
    }
    // Aggregate a gets events / aggregates messages, and one more when a < events % aggregates.
    String heads =
        "INSERT INTO "
            + BenchDatabase.HEADS
            + " AS h (aggregate_type, aggregate_id, write_seq, delivered_seq, available_at)"
            + " SELECT ?, 'agg-' || a, n, "
            + (delivered ? "n" : "0")
            + ", now() FROM (SELECT a, ?::bigint / ? + CASE WHEN a < ?::bigint % ? THEN 1 ELSE 0"
            + " END AS n FROM generate_series(0, least(?, ?) - 1) AS s(a)) c"
            + " ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET"
            + " write_seq = h.write_seq + EXCLUDED.write_seq"
            + (delivered ? ", delivered_seq = h.write_seq + EXCLUDED.write_seq" : "");
    db.update(heads, aggregateType, events, aggregates, events, aggregates, aggregates, events);
    db.execute("ANALYZE " + BenchDatabase.OUTBOX, "ANALYZE " + BenchDatabase.HEADS);
  }
}
