package dev.outbox.kafka.kill;

import dev.outbox.hibernate.testing.e2e.E2eAggregate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.SessionFactory;

/**
 * Commits numbered events ({@link E2eAggregate.Stepped}) through Hibernate at a steady rate until a
 * count or a deadline is reached, whichever comes first, so that the load is bounded in both.
 * Several threads each own a share of a fixed set of aggregates and go round them; each transaction
 * steps two of the thread's aggregates one to {@code maxEventsPerAggregate} times each (the first
 * transaction of an aggregate creates it). An aggregate is written by its owner only, so its events
 * are numbered 0, 1, 2, ... in commit order.
 */
public final class SteadyWriter {

  private final SessionFactory emf;
  private final String aggregateType;
  private final List<String> ids;
  private final int threads;
  private final int maxEventsPerAggregate;
  private final Map<String, Integer> committed = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private final AtomicInteger transactions = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> running = new ArrayList<>();
  private final List<String> rolledBack = new CopyOnWriteArrayList<>();

  /**
   * A writer, not started.
   *
   * @param emf a persistence unit managing {@link E2eAggregate}
   * @param aggregateType the aggregate type (the topic)
   * @param idPrefix the start of every aggregate id
   * @param aggregates how many aggregates
   * @param threads how many writer threads
   * @param maxEventsPerAggregate at most this many events of one aggregate per transaction
   */
  public SteadyWriter(
      SessionFactory emf,
      String aggregateType,
      String idPrefix,
      int aggregates,
      int threads,
      int maxEventsPerAggregate) {
    this.emf = emf;
    this.aggregateType = aggregateType;
    this.ids = new ArrayList<>();
    for (int a = 0; a < aggregates; a++) {
      ids.add(String.format("%s-%04d", idPrefix, a));
    }
    this.threads = threads;
    this.maxEventsPerAggregate = maxEventsPerAggregate;
  }

  /**
   * Starts writing.
   *
   * @param maxEvents stops once this many events are committed (a transaction may go a little over
   *     it, never more than its own events)
   * @param eventsPerSecond the rate of all threads together, at most
   * @param until stops at this {@link System#nanoTime()}
   */
  public void start(int maxEvents, int eventsPerSecond, long until) {
    long start = System.nanoTime();
    double perThread = eventsPerSecond / (double) threads;
    for (int t = 0; t < threads; t++) {
      List<String> share = new ArrayList<>();
      for (int a = t; a < ids.size(); a += threads) {
        share.add(ids.get(a));
      }
      int seed = t;
      Thread thread =
          new Thread(
              () -> {
                try {
                  write(share, new Random(seed), maxEvents, perThread, start, until);
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "steady-writer-" + t);
      thread.setDaemon(true);
      running.add(thread);
      thread.start();
    }
  }

  private void write(
      List<String> share, Random random, int maxEvents, double perSecond, long start, long until)
      throws InterruptedException {
    long mine = 0;
    for (int next = 0; System.nanoTime() < until && total.get() < maxEvents; next += 2) {
      Map<String, Integer> steps = new LinkedHashMap<>();
      for (int i = 0; i < 2; i++) {
        steps.put(share.get((next + i) % share.size()), 1 + random.nextInt(maxEventsPerAggregate));
      }
      commit(steps);
      int events = steps.values().stream().mapToInt(Integer::intValue).sum();
      steps.forEach((id, times) -> committed.merge(id, times, Integer::sum));
      total.addAndGet(events);
      transactions.incrementAndGet();
      mine += events;
      long due = start + (long) (mine / perSecond * 1e9);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
    }
  }

  /**
   * Commits one transaction. One that fails (a deadlock, a serialization failure) rolls back
   * entirely and is tried again, as an application would; each failure is kept for the report.
   */
  private void commit(Map<String, Integer> steps) {
    for (int attempt = 1; ; attempt++) {
      try {
        emf.inTransaction(
            session ->
                steps.forEach(
                    (id, times) -> {
                      E2eAggregate aggregate = session.find(E2eAggregate.class, id);
                      if (aggregate == null) {
                        aggregate = new E2eAggregate(id, aggregateType);
                        session.persist(aggregate);
                      }
                      for (int s = 0; s < times; s++) {
                        aggregate.step();
                      }
                    }));
        return;
      } catch (RuntimeException e) {
        rolledBack.add(steps.keySet() + ": " + rootMessage(e));
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.toString();
  }

  /**
   * Transactions that failed and were tried again: the aggregates and the root cause.
   *
   * @return a copy
   */
  public List<String> rolledBack() {
    return List.copyOf(rolledBack);
  }

  /**
   * Waits until every thread stopped, and rethrows what the first failing one threw.
   *
   * @param timeout how long to wait for each thread
   */
  public void await(Duration timeout) throws InterruptedException {
    for (Thread thread : running) {
      thread.join(timeout.toMillis());
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not stop within " + timeout);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("A writer failed: " + failure.get(), failure.get());
    }
  }

  /**
   * The first failure of a writer thread, if any, while it runs.
   *
   * @return the failure or {@code null}
   */
  public Throwable failure() {
    return failure.get();
  }

  /**
   * Events committed so far.
   *
   * @return the count
   */
  public int total() {
    return total.get();
  }

  /**
   * Transactions committed so far.
   *
   * @return the count
   */
  public int transactions() {
    return transactions.get();
  }

  /**
   * Each aggregate written with how many events it committed, numbered from 0; after {@link
   * #await}, for {@link dev.outbox.testkit.e2e.DeliveryCheck#expecting(Map)}.
   *
   * @return a copy
   */
  public Map<String, Integer> eventsPerAggregate() {
    return Map.copyOf(committed);
  }
}
