package dev.outbox.testkit.kill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The load of a kill test: commits events of a fixed set of aggregates at a capped rate until a
 * count or a deadline is reached, whichever comes first, so that the load is bounded in both.
 * Several threads each own a share of the aggregates and go round them; each transaction writes one
 * to {@code maxEventsPerAggregate} events (drawn from the thread's own seeded {@link Random}) for
 * each of two of the thread's aggregates. An aggregate is written by its owner only, so its events
 * follow each other in commit order. What a transaction writes, and through what (Hibernate, JDBC),
 * is the test's {@link Transaction}; one that fails is tried again, up to five times, as an
 * application would.
 */
public final class BoundedWriter {

  /** How many times a transaction is tried before its thread fails. */
  public static final int ATTEMPTS = 5;

  /** What the test commits for a writer: one transaction with every step in it, all or nothing. */
  @FunctionalInterface
  public interface Transaction {

    /**
     * Commits the steps in one transaction, or throws, having committed none of them.
     *
     * @param steps the aggregates, in order, each with its events
     */
    void commit(List<Step> steps);
  }

  /**
   * One aggregate's part of a transaction.
   *
   * @param aggregateId the aggregate
   * @param committedBefore how many of its events were committed before this transaction
   * @param events how many events to write now, at least 1
   */
  public record Step(String aggregateId, int committedBefore, int events) {}

  private final String name;
  private final List<String> aggregateIds;
  private final int threads;
  private final int maxEventsPerAggregate;
  private final Transaction transaction;
  private final Map<String, Integer> committed = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private final AtomicInteger transactions = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> running = new ArrayList<>();
  private final List<String> rolledBack = new CopyOnWriteArrayList<>();

  /**
   * A writer, not started.
   *
   * @param name the start of its threads' names
   * @param aggregateIds the aggregates, shared out among the threads
   * @param threads how many writer threads, at most half as many as aggregates
   * @param maxEventsPerAggregate at most this many events of one aggregate per transaction
   * @param transaction commits each transaction
   */
  public BoundedWriter(
      String name,
      List<String> aggregateIds,
      int threads,
      int maxEventsPerAggregate,
      Transaction transaction) {
    if (threads < 1 || threads * 2 > aggregateIds.size()) {
      throw new IllegalArgumentException(
          "threads must be between 1 and half the "
              + aggregateIds.size()
              + " aggregates (each transaction writes two of its thread's), but was "
              + threads);
    }
    if (maxEventsPerAggregate < 1) {
      throw new IllegalArgumentException(
          "maxEventsPerAggregate must be >= 1, but was " + maxEventsPerAggregate);
    }
    this.name = Objects.requireNonNull(name, "name");
    this.aggregateIds = List.copyOf(aggregateIds);
    this.threads = threads;
    this.maxEventsPerAggregate = maxEventsPerAggregate;
    this.transaction = Objects.requireNonNull(transaction, "transaction");
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
      for (int a = t; a < aggregateIds.size(); a += threads) {
        share.add(aggregateIds.get(a));
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
              name + "-" + t);
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
      List<Step> steps = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        String id = share.get((next + i) % share.size());
        steps.add(
            new Step(id, committed.getOrDefault(id, 0), 1 + random.nextInt(maxEventsPerAggregate)));
      }
      commit(steps);
      int events = steps.stream().mapToInt(Step::events).sum();
      steps.forEach(step -> committed.merge(step.aggregateId(), step.events(), Integer::sum));
      total.addAndGet(events);
      transactions.incrementAndGet();
      mine += events;
      // The rate cap: wait until this thread's share of the rate allows its next transaction.
      long wait = start + (long) (mine / perSecond * 1e9) - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
    }
  }

  /**
   * Commits one transaction. One that fails (a deadlock, a serialization failure) rolls back
   * entirely and is tried again; each failure is kept for the report.
   */
  private void commit(List<Step> steps) {
    for (int attempt = 1; ; attempt++) {
      try {
        transaction.commit(steps);
        return;
      } catch (RuntimeException e) {
        rolledBack.add(
            steps.stream().map(Step::aggregateId).toList() + ": " + rootCause(e).toString());
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static Throwable rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  /**
   * Waits until every thread stopped, and rethrows what the first failing one threw.
   *
   * @param timeout how long to wait for each thread
   * @throws IllegalStateException when a thread is still running or a thread failed
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
   * The first failure of a writer thread, if any, while they run.
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
   * Transactions that failed and were tried again: the aggregates and the root cause.
   *
   * @return a copy
   */
  public List<String> rolledBack() {
    return List.copyOf(rolledBack);
  }

  /**
   * Each aggregate written with how many events it committed; complete after {@link #await}, for
   * {@link dev.outbox.testkit.e2e.DeliveryCheck#expecting(Map)} for example.
   *
   * @return a copy
   */
  public Map<String, Integer> eventsPerAggregate() {
    return Map.copyOf(committed);
  }
}
