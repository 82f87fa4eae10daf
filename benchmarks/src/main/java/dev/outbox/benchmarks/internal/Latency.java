package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.spi.EventPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Commit to broker acknowledgement at a steady rate, with the default options (fast path on): a
 * paced writer commits one event per transaction from several threads, each on aggregates of its
 * own, and notes when each commit returned; {@link TimingPublisher} notes when the adapter's {@code
 * publish} returned with the acknowledgement. Also measured, from an {@link OutboxListener}: {@code
 * publishedAt - createdAt}, from the flush that wrote the row to the recording of its publication.
 */
public final class Latency {

  private static final int THREADS = 16;
  private static final int AGGREGATES = 4_000;

  private final BenchDatabase db;
  private final String aggregateType;
  private final List<String> ids = new ArrayList<>();

  /** One run's distribution, in milliseconds. */
  public record Result(
      double p50,
      double p99,
      double max,
      double flushP50,
      double flushP99,
      double rate,
      long fromMemory,
      long claimed) {

    /**
     * One line for the log.
     *
     * @return the line
     */
    public String describe() {
      return String.format(
          Locale.ROOT,
          "commit->ack p50 %.3f p99 %.3f max %.3f ms; flush->record (listener) p50 %.3f p99 %.3f"
              + " ms; %.0f events/s written; %s",
          p50,
          p99,
          max,
          flushP50,
          flushP99,
          rate,
          fromMemory < 0
              ? "fast-path split not measured"
              : fromMemory
                  + " handed over at commit (fast path), "
                  + claimed
                  + " read from the table (claim or read-on)");
    }
  }

  /**
   * Creates the aggregates.
   *
   * @param db the database
   * @param aggregateType a Kafka topic that exists
   */
  public Latency(BenchDatabase db, String aggregateType) {
    this.db = db;
    this.aggregateType = aggregateType;
    db.emf()
        .inTransaction(
            session -> {
              for (int i = 0; i < AGGREGATES; i++) {
                String id = "latency-" + i;
                session.persist(new BenchAggregate(id, aggregateType));
                ids.add(id);
              }
            });
  }

  /**
   * Runs the outbox and the paced writer.
   *
   * @param publisher the adapter's publisher, closed at the end
   * @param rate events per second
   * @param warmUp how long to write before measuring
   * @param runs how many measured runs
   * @param length each run's length
   * @return one result per run
   */
  public List<Result> run(
      EventPublisher publisher, int rate, Duration warmUp, int runs, Duration length) {
    TimingPublisher timing = new TimingPublisher(publisher);
    ConcurrentLinkedQueue<Double> flushToRecord = new ConcurrentLinkedQueue<>();
    BatchMeter batches = new BatchMeter();
    OutboxListener listener =
        new OutboxListener() {
          @Override
          public void published(OutboxMessage message, String destination, Instant publishedAt) {
            flushToRecord.add(Duration.between(message.createdAt(), publishedAt).toNanos() / 1e6);
          }

          @Override
          public void batchCompleted(
              int size, int published, Duration claim, Duration publish, Duration record) {
            batches.add(size, claim, publish, record);
          }
        };
    List<Result> results = new ArrayList<>();
    HandOverProbe probe = new HandOverProbe();
    try (Outbox outbox =
        Outbox.create(
            db.options().toBuilder().listener(listener).build(),
            probe.watch(HibernateOutbox.store(db.emf())),
            timing)) {
      outbox.start();
      timing.probe(probe);
      try {
        write(rate, warmUp);
        for (int r = 0; r < runs; r++) {
          awaitQuiet(timing);
          timing.reset();
          flushToRecord.clear();
          batches.reset();
          long start = System.nanoTime();
          Map<String, Long> committed = write(rate, length);
          double seconds = (System.nanoTime() - start) / 1e9;
          awaitAcked(timing, committed, db);
          results.add(result(committed, timing, flushToRecord, committed.size() / seconds));
          System.out.println("    latency run " + (r + 1) + ": " + results.get(r).describe());
          System.out.println("      processor: " + batches.describe(seconds));
        }
      } finally {
        timing.probe(null);
      }
    }
    return results;
  }

  private Map<String, Long> write(int rate, Duration length) {
    long total = Math.max(THREADS, rate * length.toMillis() / 1000);
    long interval = 1_000_000_000L * THREADS / rate;
    Map<String, Long> committed = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    long start = System.nanoTime();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        writers.add(
            pool.submit(() -> writeShare(thread, total / THREADS, start, interval, committed)));
      }
      for (Future<?> writer : writers) {
        writer.get(length.toMillis() * 4 + 60_000, TimeUnit.MILLISECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("A latency writer failed: " + e, e);
    } finally {
      pool.shutdownNow();
    }
    return committed;
  }

  /** Thread {@code t} writes events t, t+T, t+2T, ... each at its scheduled time. */
  private void writeShare(
      int thread, long count, long start, long interval, Map<String, Long> committed) {
    int share = ids.size() / THREADS;
    long offset = interval * thread / THREADS;
    long stopAt = start + interval * count * 2;
    for (long k = 0; k < count && System.nanoTime() < stopAt; k++) {
      long due = start + offset + k * interval;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      String id = ids.get(thread * share + (int) (k % share));
      long[] sequence = new long[1];
      db.emf()
          .inTransaction(
              session -> {
                BenchAggregate aggregate = session.find(BenchAggregate.class, id);
                aggregate.touch(1);
                sequence[0] = aggregate.getSteps() - 1;
              });
      committed.put(id + '#' + sequence[0], System.nanoTime());
    }
  }

  private static void awaitAcked(
      TimingPublisher timing, Map<String, Long> committed, BenchDatabase db) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!timing.ackedAt().keySet().containsAll(committed.keySet())) {
      if (System.nanoTime() > deadline) {
        List<String> missing =
            committed.keySet().stream().filter(k -> !timing.ackedAt().containsKey(k)).toList();
        throw new IllegalStateException(
            missing.size()
                + " latency events were not acknowledged within 60 s, for example "
                + missing.subList(0, Math.min(5, missing.size()))
                + "; heads: "
                + db.pendingSummary());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private static void awaitQuiet(TimingPublisher timing) {
    long seen;
    do {
      seen = timing.ackedAt().size();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
    } while (timing.ackedAt().size() != seen);
  }

  private static Result result(
      Map<String, Long> committed,
      TimingPublisher timing,
      ConcurrentLinkedQueue<Double> flushToRecord,
      double rate) {
    double[] latencies =
        committed.entrySet().stream()
            .mapToDouble(e -> Math.max(0, timing.ackedAt().get(e.getKey()) - e.getValue()) / 1e6)
            .sorted()
            .toArray();
    double[] flush =
        Stats.sorted(flushToRecord.stream().mapToDouble(Double::doubleValue).toArray());
    return new Result(
        Stats.percentile(latencies, 50),
        Stats.percentile(latencies, 99),
        latencies[latencies.length - 1],
        flush.length == 0 ? Double.NaN : Stats.percentile(flush, 50),
        flush.length == 0 ? Double.NaN : Stats.percentile(flush, 99),
        rate,
        timing.fromMemory(),
        timing.claimed());
  }
}
