package dev.outbox.samples;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Places the demo's orders from several threads: order {@code i} is placed with {@code 1 + i % 3}
 * lines, gets one more line when {@code i} is even, and is cancelled when {@code i % 5 == 0}. Each
 * change is its own transaction. A thread owns its orders, so one order is never changed by two
 * threads at once.
 */
final class OrderWorkload {

  private final OrderService service;
  private final String runId;
  private final int orders;
  private final int threads;
  private final AtomicInteger placed = new AtomicInteger();
  private final AtomicLong committedEvents = new AtomicLong();
  private ExecutorService executor;
  private final List<Future<?>> futures = new ArrayList<>();

  OrderWorkload(OrderService service, String runId, int orders, int threads) {
    this.service = service;
    this.runId = runId;
    this.orders = orders;
    this.threads = threads;
  }

  /**
   * How many events the workload commits.
   *
   * @param orders the number of orders
   * @return the events of all orders
   */
  static long expectedEvents(int orders) {
    long events = 0;
    for (int i = 0; i < orders; i++) {
      events += 1 + (i % 2 == 0 ? 1 : 0) + (i % 5 == 0 ? 1 : 0);
    }
    return events;
  }

  void start() {
    executor = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      int first = t;
      futures.add(executor.submit(() -> writeFrom(first)));
    }
    executor.shutdown();
  }

  private void writeFrom(int first) {
    for (int i = first; i < orders; i += threads) {
      String id = runId + "-" + i;
      List<OrderLine.Item> items = new ArrayList<>();
      for (int line = 0; line <= i % 3; line++) {
        items.add(new OrderLine.Item("SKU-" + (i + line) % 97, 1 + line, new BigDecimal("9.90")));
      }
      service.place(id, "customer-" + i % 50, items);
      placed.incrementAndGet();
      committedEvents.incrementAndGet();
      if (i % 2 == 0) {
        service.addLine(id, new OrderLine.Item("SKU-GIFT", 1, new BigDecimal("0.00")));
        committedEvents.incrementAndGet();
      }
      if (i % 5 == 0) {
        service.cancel(id, "customer changed their mind");
        committedEvents.incrementAndGet();
      }
    }
  }

  /**
   * Whether every writer finished; rethrows the first writer's failure.
   *
   * @return {@code true} when all orders were written
   */
  boolean isDone() {
    if (!executor.isTerminated()) {
      return false;
    }
    for (Future<?> future : futures) {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("placing orders failed: " + e.getCause(), e.getCause());
      }
    }
    return true;
  }

  void stop() {
    if (executor != null) {
      executor.shutdownNow();
    }
  }

  int placed() {
    return placed.get();
  }

  long committedEvents() {
    return committedEvents.get();
  }
}
