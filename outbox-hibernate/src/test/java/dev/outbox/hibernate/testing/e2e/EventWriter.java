package dev.outbox.hibernate.testing.e2e;

import dev.outbox.testkit.e2e.DeliveryCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.hibernate.SessionFactory;

/**
 * Commits numbered events through Hibernate from concurrent transactions, as an application would:
 * each thread owns some aggregates, creates them (first event in the insert), then appends their
 * events a few per transaction, going round its aggregates, so that transactions of all threads
 * interleave and every aggregate's events are numbered 0, 1, 2, ... in commit order.
 */
public final class EventWriter {

  /** Default of {@link #eventsPerTransaction(int)}. */
  public static final int DEFAULT_EVENTS_PER_TRANSACTION = 10;

  private final SessionFactory emf;
  private final String aggregateType;
  private final String idPrefix;
  private int eventsPerTransaction = DEFAULT_EVENTS_PER_TRANSACTION;

  /**
   * A writer on a persistence unit that manages {@link E2eAggregate}.
   *
   * @param emf the factory
   * @param aggregateType the aggregate type on the wire
   * @param idPrefix the start of every aggregate id, unique to the run
   */
  public EventWriter(SessionFactory emf, String aggregateType, String idPrefix) {
    this.emf = emf;
    this.aggregateType = aggregateType;
    this.idPrefix = idPrefix;
  }

  /**
   * How many events of one aggregate one transaction commits.
   *
   * @param count at least 1; default {@value #DEFAULT_EVENTS_PER_TRANSACTION}
   * @return this writer
   */
  public EventWriter eventsPerTransaction(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("eventsPerTransaction must be > 0, but was " + count);
    }
    this.eventsPerTransaction = count;
    return this;
  }

  /**
   * What was written.
   *
   * @param aggregateType the aggregate type of every event
   * @param eventsPerAggregate each aggregate id with how many events it raised (numbered from 0)
   * @param took how long writing took
   */
  public record Written(
      String aggregateType, Map<String, Integer> eventsPerAggregate, Duration took) {

    /**
     * All events written.
     *
     * @return the sum over the aggregates
     */
    public int total() {
      return eventsPerAggregate.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  /**
   * Writes {@code events} events spread evenly over {@code aggregates} aggregates from {@code
   * threads} threads, and returns once all are committed.
   *
   * @param events how many events in all
   * @param aggregates how many aggregates
   * @param threads how many concurrent writers
   * @return what was written, for {@link DeliveryCheck#expecting(Map)}
   * @throws InterruptedException when interrupted while waiting for the writers
   */
  public Written write(int events, int aggregates, int threads) throws InterruptedException {
    if (events < aggregates || aggregates < 1 || threads < 1) {
      throw new IllegalArgumentException(
          "need events >= aggregates >= 1 and threads >= 1, but was events="
              + events
              + ", aggregates="
              + aggregates
              + ", threads="
              + threads);
    }
    Map<String, Integer> plan = new LinkedHashMap<>();
    for (int a = 0; a < aggregates; a++) {
      plan.put(
          String.format("%s-%04d", idPrefix, a),
          events / aggregates + (a < events % aggregates ? 1 : 0));
    }
    long start = System.nanoTime();
    runAll(split(plan, threads));
    return new Written(
        aggregateType,
        Collections.unmodifiableMap(plan),
        Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Commits {@code events} more events to each aggregate of an earlier write, from this thread,
   * going round the aggregates {@link #eventsPerTransaction(int) eventsPerTransaction} events per
   * transaction, so that their numbering goes on where the earlier write stopped.
   *
   * @param earlier what an earlier {@link #write} of the same aggregate type committed
   * @param events how many more events each of its aggregates raises, at least 1
   * @return those aggregates with all their events, the earlier ones included, for {@link
   *     DeliveryCheck#expecting(Map)}
   */
  public Written append(Written earlier, int events) {
    if (events < 1 || !earlier.aggregateType().equals(aggregateType)) {
      throw new IllegalArgumentException(
          "need events >= 1 of aggregate type "
              + aggregateType
              + ", but was events="
              + events
              + " of "
              + earlier.aggregateType());
    }
    long start = System.nanoTime();
    for (int done = 0; done < events; done += eventsPerTransaction) {
      int times = Math.min(eventsPerTransaction, events - done);
      for (String id : earlier.eventsPerAggregate().keySet()) {
        emf.inTransaction(session -> step(session.find(E2eAggregate.class, id), times));
      }
    }
    Map<String, Integer> all = new LinkedHashMap<>();
    earlier.eventsPerAggregate().forEach((id, count) -> all.put(id, count + events));
    return new Written(
        aggregateType,
        Collections.unmodifiableMap(all),
        Duration.ofNanos(System.nanoTime() - start));
  }

  private static List<Map<String, Integer>> split(Map<String, Integer> plan, int threads) {
    List<Map<String, Integer>> shares = new ArrayList<>();
    for (int t = 0; t < Math.min(threads, plan.size()); t++) {
      shares.add(new LinkedHashMap<>());
    }
    int next = 0;
    for (Map.Entry<String, Integer> entry : plan.entrySet()) {
      shares.get(next++ % shares.size()).put(entry.getKey(), entry.getValue());
    }
    return shares;
  }

  private void runAll(List<Map<String, Integer>> shares) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(shares.size());
    try {
      List<Future<?>> running = new ArrayList<>();
      shares.forEach(share -> running.add(pool.submit(() -> writeShare(share))));
      for (Future<?> each : running) {
        each.get(10, TimeUnit.MINUTES);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("A writer failed: " + e.getMessage(), e);
    } finally {
      pool.shutdownNow();
    }
  }

  private void writeShare(Map<String, Integer> share) {
    emf.inTransaction(
        session ->
            share
                .keySet()
                .forEach(
                    id -> {
                      E2eAggregate aggregate = new E2eAggregate(id, aggregateType);
                      aggregate.step();
                      session.persist(aggregate);
                    }));
    for (int done = 1; done < maxOf(share); done += eventsPerTransaction) {
      int from = done;
      share.forEach(
          (id, count) -> {
            int to = Math.min(count, from + eventsPerTransaction);
            if (from < to) {
              emf.inTransaction(session -> step(session.find(E2eAggregate.class, id), to - from));
            }
          });
    }
  }

  private static void step(E2eAggregate aggregate, int times) {
    for (int i = 0; i < times; i++) {
      aggregate.step();
    }
  }

  private static int maxOf(Map<String, Integer> share) {
    return share.values().stream().mapToInt(Integer::intValue).max().orElse(0);
  }
}
