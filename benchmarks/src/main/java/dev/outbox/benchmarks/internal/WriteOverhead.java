package dev.outbox.benchmarks.internal;

import dev.outbox.jdbc.JdbcOutbox;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;

/**
 * The write path's cost: one thread runs transactions that load an aggregate, change it and raise
 * 0, 1 or 10 events, in interleaved blocks so that drift on a noisy machine hits the three alike.
 * The outbox runs meanwhile (default options, so the write also does the fast path's lease check),
 * as in an application. The transactions are Hibernate's ({@link #hibernate}) or plain JDBC with
 * {@link JdbcOutbox} ({@link #jdbc}), on the same aggregates.
 */
public final class WriteOverhead {

  private static final int BLOCK = 20;
  private static final int AGGREGATES = 200;

  /** One transaction that changes an aggregate and raises events. */
  @FunctionalInterface
  interface Transaction {
    void run(String aggregateId, int events);
  }

  private final List<String> ids;
  private final Transaction transaction;
  private int next;

  private WriteOverhead(List<String> ids, Transaction transaction) {
    this.ids = ids;
    this.transaction = transaction;
  }

  /**
   * Creates the aggregates and measures Hibernate transactions on them.
   *
   * @param db the database
   * @param aggregateType the aggregate type (a Kafka topic that exists)
   * @return the measure
   */
  public static WriteOverhead hibernate(BenchDatabase db, String aggregateType) {
    SessionFactory emf = db.emf();
    List<String> ids = new ArrayList<>();
    emf.inTransaction(
        session -> {
          for (int i = 0; i < AGGREGATES; i++) {
            String id = "write-" + i;
            session.persist(new BenchAggregate(id, aggregateType));
            ids.add(id);
          }
        });
    return new WriteOverhead(
        List.copyOf(ids),
        (id, events) ->
            emf.inTransaction(session -> session.find(BenchAggregate.class, id).touch(events)));
  }

  /**
   * The same aggregates, changed by plain JDBC transactions that send their events with a {@link
   * JdbcOutbox} ({@link JdbcTouch}).
   *
   * @param outbox the outbox on the benchmark's data source
   * @param aggregateType the aggregate type (a Kafka topic that exists)
   * @return the measure
   */
  public WriteOverhead jdbc(JdbcOutbox outbox, String aggregateType) {
    JdbcTouch touch = new JdbcTouch(outbox, aggregateType);
    return new WriteOverhead(
        ids, (id, events) -> outbox.inTransaction(connection -> touch.run(connection, id, events)));
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
          transaction.run(ids.get(next++ % ids.size()), kinds[k]);
        }
        nanos[k] += System.nanoTime() - start;
      }
    }
    int count = (transactions + BLOCK - 1) / BLOCK * BLOCK;
    return new double[] {nanos[0] / 1e3 / count, nanos[1] / 1e3 / count, nanos[2] / 1e3 / count};
  }
}
