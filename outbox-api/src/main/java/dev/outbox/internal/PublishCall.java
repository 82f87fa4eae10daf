package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the publisher on a worker thread and turns whatever happens into exactly one result per
 * message, never an exception: a publisher that throws or is interrupted fails the whole batch as a
 * {@linkplain PublishException#isBrokerFault() broker fault} (its client failed, not a message),
 * one that hangs past the timeout leaves the batch uncertain, and a result missing for a message is
 * a retryable failure of that message.
 */
final class PublishCall implements AutoCloseable {

  /**
   * What one call produced.
   *
   * @param results exactly one per message of the batch, in its order
   * @param abandoned whether the processor stopped waiting for the publisher while it may still be
   *     sending (timeout or interrupt): nothing more of the batch is sent
   * @param atHardCap what to do when its uncertain sends have no final outcome within the hard cap:
   *     interrupt the call if it still runs, and recreate the publisher's client; runs once,
   *     however many heads of the batch reach the cap
   */
  record Attempt(List<PublishResult> results, boolean abandoned, Runnable atHardCap) {

    Attempt(List<PublishResult> results, boolean abandoned) {
      this(results, abandoned, () -> {});
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(PublishCall.class);

  private final EventPublisher publisher;
  private final Duration timeout;
  private final Supplier<String> threadName;
  private ExecutorService worker;
  // When the client was last recreated (System.nanoTime()); long ago at first.
  private volatile long lastRecreated = System.nanoTime() - Duration.ofDays(1).toNanos();

  /**
   * The processor waits at most {@code timeout} for a batch, which the options keep shorter than
   * the lease, so a batch never outlives its claim. The publisher is handed a slightly smaller
   * budget (a tenth less, at most one second less) so that it can return its own per-message
   * results before that. Its worker threads are named {@code threadName} when they start.
   */
  PublishCall(EventPublisher publisher, Duration timeout, Supplier<String> threadName) {
    this.publisher = publisher;
    this.timeout = timeout;
    this.threadName = threadName;
  }

  /** The publish timeout: the budget of one batch, all its rounds together. */
  Duration timeout() {
    return timeout;
  }

  /**
   * Publishes with a budget of its own, at most the publish timeout.
   *
   * @param budget how long this call may take
   */
  synchronized Attempt publish(List<OutboxMessage> batch, Duration budget) {
    long started = System.nanoTime();
    long margin = Math.min(budget.toMillis() / 10, 1_000);
    Duration publisherBudget = budget.minusMillis(margin);
    Future<List<PublishResult>> call =
        worker().submit(() -> publisher.publish(batch, publisherBudget));
    try {
      List<PublishResult> results =
          normalize(batch, call.get(budget.toNanos(), TimeUnit.NANOSECONDS));
      boolean uncertain = results.stream().anyMatch(PublishResult::isUncertain);
      return new Attempt(results, false, uncertain ? atHardCap(null, started) : () -> {});
    } catch (TimeoutException e) {
      // The call may still be sending: its messages are uncertain until it returns. Its worker is
      // left to finish it (not interrupted before the hard cap); the next call gets a new one.
      abandonWorker(false);
      return new Attempt(uncertain(batch, call, budget), true, atHardCap(call, started));
    } catch (ExecutionException e) {
      return new Attempt(failAll(batch, "publisher threw " + e.getCause(), e.getCause()), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      abandonWorker(true);
      return new Attempt(failAll(batch, "interrupted while publishing", e), true);
    }
  }

  /**
   * At the hard cap, once: interrupts the call if it still runs, then recreates the client, whose
   * sends were taken to be stuck, unless it was recreated since the call started: the stuck sends
   * are gone with that client, and the new one serves other batches.
   *
   * @param running the call, or {@code null} when it returned
   * @param started when the call started, {@link System#nanoTime()}
   */
  private Runnable atHardCap(Future<?> running, long started) {
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        if (running != null) {
          running.cancel(true);
        }
        if (lastRecreated - started > 0) {
          return;
        }
        lastRecreated = System.nanoTime();
        try {
          publisher.recreateClient();
        } catch (RuntimeException e) {
          LOG.warn("Recreating the publisher's client at the hard cap failed", e);
        }
      }
    };
  }

  /**
   * Results for a call that did not return within its budget: each message's final outcome is what
   * the call returns for it when it does return (or a failure when it throws).
   */
  private static List<PublishResult> uncertain(
      List<OutboxMessage> batch, Future<List<PublishResult>> call, Duration budget) {
    CompletableFuture<List<PublishResult>> returned =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return normalize(batch, call.get());
              } catch (ExecutionException e) {
                return failAll(batch, "publisher threw " + e.getCause(), e.getCause());
              } catch (InterruptedException | CancellationException e) {
                return failAll(batch, "publisher interrupted at the hard cap", e);
              }
            },
            runnable -> {
              Thread waiter = new Thread(runnable, "outbox-uncertain-call");
              waiter.setDaemon(true);
              waiter.start();
            });
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      int index = i;
      CompletionStage<PublishResult> outcome =
          returned.thenCompose(
              list -> {
                PublishResult result = list.get(index);
                return result.isUncertain()
                    ? result.finalOutcome()
                    : CompletableFuture.completedFuture(result);
              });
      results.add(PublishResult.uncertain(batch.get(i).id(), null, budget, outcome));
    }
    // Per batch: the engine logs the broker's outage once (BatchCycle), this goes to debug.
    LOG.debug(
        "Publisher did not return a batch of {} within {}; its messages count as uncertain until it"
            + " does",
        batch.size(),
        budget);
    return results;
  }

  private static List<PublishResult> normalize(
      List<OutboxMessage> batch, List<PublishResult> returned) {
    Map<UUID, PublishResult> byId = new HashMap<>();
    if (returned != null) {
      for (PublishResult result : returned) {
        if (result != null) {
          byId.putIfAbsent(result.messageId(), result);
        }
      }
    }
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      PublishResult result = byId.get(message.id());
      results.add(
          result != null
              ? result
              : PublishResult.failed(
                  message.id(),
                  PublishException.retryable(
                      message.id(), null, "publisher returned no result for this message", null)));
    }
    if (returned == null || returned.size() != batch.size()) {
      LOG.warn(
          "Publisher returned {} results for a batch of {}; missing ones count as failures",
          returned == null ? "no" : returned.size(),
          batch.size());
    }
    return results;
  }

  private static List<PublishResult> failAll(
      List<OutboxMessage> batch, String reason, Throwable cause) {
    // Per batch: the engine logs the broker's outage once (BrokerGate), this goes to debug.
    LOG.debug("Publishing a batch of {} failed: {}", batch.size(), reason, cause);
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      results.add(
          PublishResult.failed(
              message.id(), PublishException.brokerUnavailable(message.id(), null, reason, cause)));
    }
    return results;
  }

  private ExecutorService worker() {
    if (worker == null) {
      worker =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread thread = new Thread(task, threadName.get());
                thread.setDaemon(true);
                return thread;
              });
    }
    return worker;
  }

  /**
   * Leaves the worker to the call it runs; the next call gets a new one.
   *
   * @param interrupt whether to interrupt that call
   */
  private void abandonWorker(boolean interrupt) {
    if (worker != null) {
      if (interrupt) {
        worker.shutdownNow();
      } else {
        worker.shutdown();
      }
      worker = null;
    }
  }

  @Override
  public synchronized void close() {
    abandonWorker(true);
  }
}
