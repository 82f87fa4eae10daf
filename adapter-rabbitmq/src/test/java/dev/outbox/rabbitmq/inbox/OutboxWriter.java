package dev.outbox.rabbitmq.inbox;

import dev.outbox.DomainEvent;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spi.EventSerializer;
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

/**
 * Commits numbered events through {@link JdbcOutbox#inTransaction} at a capped rate until a count
 * or a deadline is reached, whichever comes first, so that the load is bounded in both. Several
 * threads each own a share of the aggregates and go round them; each transaction sends one to
 * {@code maxEventsPerAggregate} events for each of two of the thread's aggregates. An aggregate is
 * written by its owner only, so its events are numbered 1, 2, 3, ... in commit order, as the outbox
 * numbers their seq.
 */
public final class OutboxWriter {

  /**
   * The event: the aggregate's n-th, from 1.
   *
   * @param aggregateId the aggregate
   * @param number the event's number within its aggregate
   */
  public record Stepped(String aggregateId, int number) implements DomainEvent {

    /** The event type on the wire. */
    public static final String TYPE = "Stepped";

    @Override
    public String eventType() {
      return TYPE;
    }
  }

  /** Writes {@link Stepped} as JSON, so that the outbox needs no JSON library. */
  public static final EventSerializer SERIALIZER =
      event -> {
        Stepped stepped = (Stepped) event;
        return "{\"aggregateId\":\""
            + stepped.aggregateId()
            + "\",\"number\":"
            + stepped.number()
            + "}";
      };

  private final JdbcOutbox outbox;
  private final String aggregateType;
  private final List<String> aggregateIds;
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
   * @param outbox the outbox the events are sent through
   * @param aggregateType the aggregate type of every event
   * @param aggregateIds the aggregates, shared out among the threads
   * @param threads how many writer threads
   * @param maxEventsPerAggregate at most this many events of one aggregate per transaction
   */
  public OutboxWriter(
      JdbcOutbox outbox,
      String aggregateType,
      List<String> aggregateIds,
      int threads,
      int maxEventsPerAggregate) {
    this.outbox = outbox;
    this.aggregateType = aggregateType;
    this.aggregateIds = List.copyOf(aggregateIds);
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
              "outbox-writer-" + t);
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
      // The rate cap: wait until this thread's share of the rate allows its next transaction.
      long wait = start + (long) (mine / perSecond * 1e9) - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
    }
  }

  /**
   * Commits one transaction. One that fails rolls back entirely and is tried again, as an
   * application would; each failure is kept for the report.
   */
  private void commit(Map<String, Integer> steps) {
    for (int attempt = 1; ; attempt++) {
      try {
        outbox.inTransaction(
            connection -> {
              steps.forEach(
                  (id, times) -> {
                    int before = committed.getOrDefault(id, 0);
                    for (int s = 1; s <= times; s++) {
                      outbox.send(connection, aggregateType, id, new Stepped(id, before + s));
                    }
                  });
              return null;
            });
        return;
      } catch (RuntimeException e) {
        rolledBack.add(steps.keySet() + ": " + e);
        if (attempt == 5) {
          throw e;
        }
      }
    }
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
   * Transactions that failed and were tried again: the aggregates and the error.
   *
   * @return a copy
   */
  public List<String> rolledBack() {
    return List.copyOf(rolledBack);
  }

  /**
   * Each aggregate written with how many events it committed; complete after {@link #await}.
   *
   * @return a copy
   */
  public Map<String, Integer> eventsPerAggregate() {
    return Map.copyOf(committed);
  }
}
