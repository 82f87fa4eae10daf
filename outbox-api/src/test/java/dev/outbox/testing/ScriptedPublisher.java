package dev.outbox.testing;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link EventPublisher} that does what the test scripted, per call or per message, and records
 * everything it was asked. By default every message succeeds. Thread-safe.
 */
public final class ScriptedPublisher implements EventPublisher {

  /** What happens to one message. */
  public enum Result {
    /** Acknowledged. */
    SUCCESS,
    /** A failure a retry may fix. */
    RETRYABLE_FAILURE,
    /** A failure no retry can fix. */
    PERMANENT_FAILURE,
    /** The broker or the connection failed, not the message: it counts no attempt. */
    BROKER_DOWN
  }

  /** What one whole call does. */
  public enum Call {
    /** Returns the per-message results. */
    NORMAL,
    /** Throws instead of returning. */
    THROW,
    /** Returns results for all but the last message. */
    MISSING_RESULT,
    /** Returns results whose ids are not in the batch. */
    UNKNOWN_IDS,
    /** Blocks until interrupted (or released). */
    HANG,
    /** Blocks until {@link #release()}, then returns the per-message results. */
    BLOCK_UNTIL_RELEASED
  }

  private final Map<UUID, Queue<Result>> perMessage = new HashMap<>();
  private final Queue<Call> perCall = new ArrayDeque<>();
  private final List<List<OutboxMessage>> calls = new ArrayList<>();
  private final List<OutboxMessage> acknowledged = new ArrayList<>();
  private final Set<UUID> inFlight = new HashSet<>();
  private final Queue<UUID> overlaps = new ConcurrentLinkedQueue<>();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger interrupted = new AtomicInteger();
  private final CountDownLatch released = new CountDownLatch(1);
  private final CountDownLatch blocking = new CountDownLatch(1);
  private volatile boolean brokerDown;
  private Random random;
  private double failureRate;

  /**
   * Scripts the next results of one message, used one per attempt; then it succeeds.
   *
   * @param id the message
   * @param results the results of its next attempts
   * @return this publisher
   */
  public synchronized ScriptedPublisher forMessage(UUID id, Result... results) {
    perMessage.computeIfAbsent(id, key -> new ArrayDeque<>()).addAll(Arrays.asList(results));
    return this;
  }

  /**
   * Scripts the behaviour of the next calls, one per call; then calls are {@link Call#NORMAL}.
   *
   * @param behaviours the behaviours
   * @return this publisher
   */
  public synchronized ScriptedPublisher forNextCalls(Call... behaviours) {
    perCall.addAll(Arrays.asList(behaviours));
    return this;
  }

  /**
   * Fails unscripted messages retryably at random.
   *
   * @param rate the share that fails, between 0 and 1
   * @param seed the random seed
   * @return this publisher
   */
  public synchronized ScriptedPublisher failingRandomly(double rate, long seed) {
    this.failureRate = rate;
    this.random = new Random(seed);
    return this;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    Call call = begin(messages);
    try {
      if (call == Call.HANG || call == Call.BLOCK_UNTIL_RELEASED) {
        blocking.countDown();
        awaitRelease();
      }
      return switch (call) {
        case THROW -> throw new IllegalStateException("scripted publisher blew up");
        case MISSING_RESULT -> results(messages.subList(0, messages.size() - 1));
        case UNKNOWN_IDS ->
            messages.stream().map(m -> PublishResult.published(UUID.randomUUID())).toList();
        default -> results(messages);
      };
    } finally {
      end(messages);
    }
  }

  private synchronized Call begin(List<OutboxMessage> messages) {
    calls.add(List.copyOf(messages));
    for (OutboxMessage message : messages) {
      if (!inFlight.add(message.id())) {
        overlaps.add(message.id());
      }
    }
    Call call = perCall.poll();
    return call == null ? Call.NORMAL : call;
  }

  private synchronized void end(List<OutboxMessage> messages) {
    messages.forEach(message -> inFlight.remove(message.id()));
  }

  private void awaitRelease() {
    try {
      released.await();
    } catch (InterruptedException e) {
      interrupted.incrementAndGet();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while hanging", e);
    }
  }

  private synchronized List<PublishResult> results(List<OutboxMessage> messages) {
    List<PublishResult> results = new ArrayList<>();
    for (OutboxMessage message : messages) {
      Result result = nextResult(message.id());
      results.add(
          switch (result) {
            case SUCCESS -> PublishResult.published(message.id());
            case RETRYABLE_FAILURE ->
                PublishResult.failed(
                    message.id(),
                    PublishException.retryable(
                        message.id(), "test-topic", "broker unavailable", null));
            case BROKER_DOWN ->
                PublishResult.failed(
                    message.id(),
                    PublishException.brokerUnavailable(
                        message.id(), "test-topic", "connection refused", null));
            case PERMANENT_FAILURE ->
                PublishResult.failed(
                    message.id(),
                    PublishException.permanent(
                        message.id(), "test-topic", "message too large", null));
          });
      if (result == Result.SUCCESS) {
        acknowledged.add(message);
      }
    }
    return results;
  }

  private Result nextResult(UUID id) {
    if (brokerDown) {
      return Result.BROKER_DOWN;
    }
    Queue<Result> scripted = perMessage.get(id);
    if (scripted != null && !scripted.isEmpty()) {
      return scripted.poll();
    }
    if (random != null && random.nextDouble() < failureRate) {
      return Result.RETRYABLE_FAILURE;
    }
    return Result.SUCCESS;
  }

  /**
   * Takes the broker away: every message fails as a broker fault, scripted ones too (their script
   * waits), until it is back.
   *
   * @param down whether the broker is away
   * @return this publisher
   */
  public ScriptedPublisher brokerDown(boolean down) {
    this.brokerDown = down;
    return this;
  }

  /** Lets blocked and hanging calls go on. */
  public void release() {
    released.countDown();
  }

  /**
   * Waits until a call blocks ({@link Call#HANG} or {@link Call#BLOCK_UNTIL_RELEASED}).
   *
   * @throws InterruptedException when interrupted
   */
  public void awaitBlocking() throws InterruptedException {
    blocking.await();
  }

  /**
   * Every batch it was asked to publish, in call order.
   *
   * @return a copy
   */
  public synchronized List<List<OutboxMessage>> calls() {
    return List.copyOf(calls);
  }

  /**
   * Every message it acknowledged, in the order it acknowledged them.
   *
   * @return a copy
   */
  public synchronized List<OutboxMessage> acknowledged() {
    return List.copyOf(acknowledged);
  }

  /**
   * Messages that were in two publish calls at the same time.
   *
   * @return their ids; empty when that never happened
   */
  public List<UUID> overlaps() {
    return List.copyOf(overlaps);
  }

  /**
   * Whether no call is under way.
   *
   * @return true when every call has returned or thrown
   */
  public synchronized boolean idle() {
    return inFlight.isEmpty();
  }

  /**
   * How many calls were interrupted while hanging.
   *
   * @return the count
   */
  public int interruptedCalls() {
    return interrupted.get();
  }

  /**
   * How often {@link #close()} was called.
   *
   * @return the count
   */
  public int closeCount() {
    return closed.get();
  }

  @Override
  public void close() {
    closed.incrementAndGet();
  }
}
