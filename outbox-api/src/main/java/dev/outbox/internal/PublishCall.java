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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the publisher on a worker thread and turns whatever happens into exactly one result per
 * message: a publisher that throws, hangs past the timeout, or returns too few results produces
 * retryable failures, never an exception.
 */
final class PublishCall implements AutoCloseable {

  /**
   * What one call produced.
   *
   * @param results exactly one per message of the batch, in its order
   * @param abandoned whether the publisher was given up on while it may still be sending (timeout
   *     or interrupt): its messages must not be claimed again before the claim would have run out
   */
  record Attempt(List<PublishResult> results, boolean abandoned) {}

  private static final Logger LOG = LoggerFactory.getLogger(PublishCall.class);

  private final EventPublisher publisher;
  private final Duration timeout;
  private final String threadName;
  private ExecutorService worker;

  /**
   * The processor waits at most {@code timeout} for a batch, which the options keep shorter than
   * the lease, so a batch never outlives its claim. The publisher is handed a slightly smaller
   * budget (a tenth less, at most one second less) so that it can return its own per-message
   * results before that.
   */
  PublishCall(EventPublisher publisher, Duration timeout, String threadName) {
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
    long margin = Math.min(budget.toMillis() / 10, 1_000);
    Duration publisherBudget = budget.minusMillis(margin);
    Future<List<PublishResult>> call =
        worker().submit(() -> publisher.publish(batch, publisherBudget));
    try {
      return new Attempt(normalize(batch, call.get(budget.toNanos(), TimeUnit.NANOSECONDS)), false);
    } catch (TimeoutException e) {
      call.cancel(true);
      abandonWorker();
      return new Attempt(
          failAll(batch, "publisher did not return within the publish timeout of " + budget, e),
          true);
    } catch (ExecutionException e) {
      return new Attempt(failAll(batch, "publisher threw " + e.getCause(), e.getCause()), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      abandonWorker();
      return new Attempt(failAll(batch, "interrupted while publishing", e), true);
    }
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
    LOG.warn("Publishing a batch of {} failed: {}", batch.size(), reason);
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      results.add(
          PublishResult.failed(
              message.id(), PublishException.retryable(message.id(), null, reason, cause)));
    }
    return results;
  }

  private ExecutorService worker() {
    if (worker == null) {
      worker =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread thread = new Thread(task, threadName);
                thread.setDaemon(true);
                return thread;
              });
    }
    return worker;
  }

  /**
   * A worker stuck in a publisher that ignores interrupts is left behind; the next call gets a new
   * one.
   */
  private void abandonWorker() {
    if (worker != null) {
      worker.shutdownNow();
      worker = null;
    }
  }

  @Override
  public synchronized void close() {
    abandonWorker();
  }
}
