package dev.outbox.samples.payments;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the demo's payments from several threads: payment {@code i} of merchant {@code i %
 * MERCHANTS} is requested, authorized and captured, each its own transaction; every tenth capture
 * is first tried with one more than the amount, which the database refuses (the transaction rolls
 * back with its events), and then with the amount. A thread owns its payments; the merchants are
 * shared, so their credits come from all threads at once. 4 events per payment: 3 of the payment, 1
 * of its merchant.
 */
final class PaymentWorkload {

  /** How many merchants the payments go to. */
  static final int MERCHANTS = 5;

  /** Events per payment: requested, authorized, captured, and the merchant's credit. */
  static final int EVENTS_PER_PAYMENT = 4;

  private static final BigDecimal ONE_CENT = new BigDecimal("0.01");

  private final PaymentService service;
  private final String runId;
  private final int payments;
  private final int threads;
  private final AtomicLong committedEvents = new AtomicLong();
  private final AtomicLong refusedCaptures = new AtomicLong();
  private final List<Future<?>> futures = new ArrayList<>();
  private ExecutorService executor;

  PaymentWorkload(PaymentService service, String runId, int payments, int threads) {
    this.service = service;
    this.runId = runId;
    this.payments = payments;
    this.threads = threads;
  }

  /**
   * The merchants' ids.
   *
   * @return {@code merchant-0} ... {@code merchant-4}
   */
  static List<String> merchantIds() {
    List<String> ids = new ArrayList<>();
    for (int m = 0; m < MERCHANTS; m++) {
      ids.add("merchant-" + m);
    }
    return ids;
  }

  void start() {
    executor = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      int first = t;
      futures.add(executor.submit(() -> runFrom(first)));
    }
    executor.shutdown();
  }

  private void runFrom(int first) {
    for (int i = first; i < payments; i += threads) {
      String paymentId = runId + "-" + i;
      BigDecimal amount = BigDecimal.valueOf(1_000 + i % 9_000, 2);
      service.request(paymentId, "merchant-" + i % MERCHANTS, amount);
      committedEvents.incrementAndGet();
      service.authorize(paymentId);
      committedEvents.incrementAndGet();
      if (i % 10 == 9) {
        if (service.capture(paymentId, amount.add(ONE_CENT))) {
          throw new IllegalStateException("the database accepted an over-capture of " + paymentId);
        }
        refusedCaptures.incrementAndGet();
      }
      if (!service.capture(paymentId, amount)) {
        throw new IllegalStateException("the database refused the capture of " + paymentId);
      }
      committedEvents.addAndGet(2);
    }
  }

  /**
   * Whether every thread finished; rethrows the first thread's failure.
   *
   * @return {@code true} when all payments were run
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
      } catch (ExecutionException e) {
        throw new IllegalStateException("running payments failed: " + e.getCause(), e.getCause());
      }
    }
    return true;
  }

  void stop() {
    if (executor != null) {
      executor.shutdownNow();
    }
  }

  long committedEvents() {
    return committedEvents.get();
  }

  long refusedCaptures() {
    return refusedCaptures.get();
  }
}
