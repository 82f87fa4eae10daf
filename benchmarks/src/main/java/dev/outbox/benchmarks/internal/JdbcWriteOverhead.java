package dev.outbox.benchmarks.internal;

import dev.outbox.jdbc.EventBatch;
import dev.outbox.jdbc.JdbcOutbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The write path's cost without an ORM: one thread runs plain JDBC transactions ({@link
 * JdbcOutbox#inTransaction}) that read an aggregate's row, update it and send 0, 1 or 10 events
 * with {@link JdbcOutbox#batch()}, in interleaved blocks as {@link WriteOverhead} does. The
 * aggregates are the rows {@link WriteOverhead} created; the outbox runs meanwhile.
 */
public final class JdbcWriteOverhead {

  private static final int BLOCK = 20;
  private static final String SELECT = "SELECT steps FROM bench_aggregates WHERE id = ?";
  private static final String UPDATE =
      "UPDATE bench_aggregates SET steps = ?, touches = touches + 1 WHERE id = ?";

  private final JdbcOutbox outbox;
  private final String aggregateType;
  private final List<String> ids;
  private int next;

  /**
   * Measures on aggregates that exist.
   *
   * @param outbox the outbox on the benchmark's data source
   * @param aggregateType the aggregate type (a Kafka topic that exists)
   * @param ids the aggregates' ids
   */
  public JdbcWriteOverhead(JdbcOutbox outbox, String aggregateType, List<String> ids) {
    this.outbox = outbox;
    this.aggregateType = aggregateType;
    this.ids = new ArrayList<>(ids);
  }

  /**
   * The mean time of a transaction with 0, 1 and 10 events.
   *
   * @param transactions how many transactions of each kind
   * @return microseconds per transaction: {@code [none, one, ten]}
   */
  public double[] run(int transactions) {
    int[] kinds = {0, 1, 10};
    long[] nanos = new long[3];
    for (int done = 0; done < transactions; done += BLOCK) {
      for (int k = 0; k < kinds.length; k++) {
        long start = System.nanoTime();
        for (int i = 0; i < BLOCK; i++) {
          int events = kinds[k];
          String id = ids.get(next++ % ids.size());
          outbox.inTransaction(connection -> touch(connection, id, events));
        }
        nanos[k] += System.nanoTime() - start;
      }
    }
    int count = (transactions + BLOCK - 1) / BLOCK * BLOCK;
    return new double[] {nanos[0] / 1e3 / count, nanos[1] / 1e3 / count, nanos[2] / 1e3 / count};
  }

  /** What {@code BenchAggregate.touch} does, in SQL: read, change, and send the events. */
  private Void touch(Connection connection, String id, int events) throws SQLException {
    long steps;
    try (PreparedStatement select = connection.prepareStatement(SELECT)) {
      select.setString(1, id);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        steps = row.getLong(1);
      }
    }
    EventBatch batch = outbox.batch();
    for (int i = 0; i < events; i++) {
      batch.add(aggregateType, id, BenchAggregate.Happened.of(id, steps++));
    }
    try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
      update.setLong(1, steps);
      update.setString(2, id);
      update.executeUpdate();
    }
    batch.send(connection);
    return null;
  }
}
