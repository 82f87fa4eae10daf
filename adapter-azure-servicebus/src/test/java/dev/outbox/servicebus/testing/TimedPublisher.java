package dev.outbox.servicebus.testing;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Wraps a publisher and records each call: how long it took, how many messages were not published
 * and how many of those were uncertain, and the final outcomes of the uncertain ones.
 */
public final class TimedPublisher implements EventPublisher {

  /**
   * One publish call.
   *
   * @param messages how many messages it was given
   * @param failed how many of them were not published (failed or uncertain)
   * @param uncertain how many of those were uncertain
   * @param startedNanos {@link System#nanoTime()} when it started
   * @param endedNanos {@link System#nanoTime()} when it returned
   * @param timeout the budget it was given
   */
  public record Call(
      int messages,
      int failed,
      int uncertain,
      long startedNanos,
      long endedNanos,
      Duration timeout) {
    /**
     * How long the call took.
     *
     * @return the duration
     */
    public Duration took() {
      return Duration.ofNanos(endedNanos - startedNanos);
    }
  }

  private final EventPublisher delegate;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<PublishResult>> finalOutcomes = new CopyOnWriteArrayList<>();

  /**
   * Wraps a publisher.
   *
   * @param delegate the real publisher
   */
  public TimedPublisher(EventPublisher delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    long start = System.nanoTime();
    List<PublishResult> results = delegate.publish(messages, timeout);
    long end = System.nanoTime();
    int failed = (int) results.stream().filter(r -> !r.isPublished()).count();
    int uncertain = 0;
    for (PublishResult result : results) {
      if (result.isUncertain()) {
        uncertain++;
        finalOutcomes.add(result.finalOutcome().toCompletableFuture());
      }
    }
    calls.add(new Call(messages.size(), failed, uncertain, start, end, timeout));
    return results;
  }

  /**
   * The final outcomes of every uncertain result so far.
   *
   * @return a snapshot
   */
  public List<CompletableFuture<PublishResult>> finalOutcomes() {
    return List.copyOf(finalOutcomes);
  }

  /**
   * The calls so far.
   *
   * @return a snapshot
   */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
