package dev.outbox.benchmarks.internal;

import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;

/**
 * The write path's cost: one thread runs Hibernate transactions that load an aggregate, change it
 * and register 0, 1 or 10 events, in interleaved blocks so that drift on a noisy machine hits the
 * three alike. The outbox runs meanwhile (default options, so the flush also does the fast path's
 * lease check), as in an application.
 */
public final class WriteOverhead {

  private static final int BLOCK = 20;
  private static final int AGGREGATES = 200;

  private final SessionFactory emf;
  private final List<String> ids = new ArrayList<>();
  private int next;

  /**
   * Creates the aggregates.
   *
   * @param db the database
   * @param aggregateType the aggregate type (a Kafka topic that exists)
   */
  public WriteOverhead(BenchDatabase db, String aggregateType) {
    this.emf = db.emf();
    emf.inTransaction(
        session -> {
          for (int i = 0; i < AGGREGATES; i++) {
            String id = "write-" + i;
            session.persist(new BenchAggregate(id, aggregateType));
            ids.add(id);
          }
        });
  }

  /**
   * The aggregates' ids.
   *
   * @return the ids, in the order they were created
   */
  public List<String> ids() {
    return List.copyOf(ids);
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
          emf.inTransaction(session -> session.find(BenchAggregate.class, id).touch(events));
        }
        nanos[k] += System.nanoTime() - start;
      }
    }
    int count = (transactions + BLOCK - 1) / BLOCK * BLOCK;
    return new double[] {nanos[0] / 1e3 / count, nanos[1] / 1e3 / count, nanos[2] / 1e3 / count};
  }
}
