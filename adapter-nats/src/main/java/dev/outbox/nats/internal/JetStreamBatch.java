package dev.outbox.nats.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * One batch on JetStream: every message sent with {@code publishAsync} first (in order, on one
 * connection, so the stream stores them in order), then the acknowledgements awaited together until
 * one shared deadline. A duplicate acknowledgement (the stream already holds that {@code
 * Nats-Msg-Id}) counts as published.
 *
 * <p>A "503 no responders" is looked into once per subject and batch ({@link StreamLookup}): no
 * stream for the subject is the message's fault, JetStream or the stream not answering the
 * broker's. No acknowledgement in time is the broker's fault unless another message of the batch
 * was acknowledged (see {@link Failures}).
 */
public final class JetStreamBatch {

  /** The least time a stream lookup gets, even when the batch's deadline has passed. */
  private static final Duration LEAST_LOOKUP = Duration.ofMillis(250);

  /** The time a stream lookup gets for an acknowledgement that failed after the call returned. */
  private static final Duration LATE_LOOKUP = Duration.ofSeconds(1);

  /** Asks JetStream which streams capture a subject that got "no responders". */
  @FunctionalInterface
  public interface StreamFinder {
    /**
     * Looks the subject up.
     *
     * @param subject the subject
     * @param budget how long the request may take
     * @return what JetStream said
     */
    StreamLookup find(String subject, Duration budget);
  }

  private final Function<OutboxMessage, String> subjects;
  private final Runnable onNoStream;
  private final StreamFinder streams;
  private final LongSupplier reconnects;

  /**
   * A batch sender.
   *
   * @param subjects resolves each message's subject
   * @param onNoStream called when a message found no stream
   * @param streams looks up the streams of a subject nobody answered on
   * @param reconnects how often the connection was re-established so far
   */
  public JetStreamBatch(
      Function<OutboxMessage, String> subjects,
      Runnable onNoStream,
      StreamFinder streams,
      LongSupplier reconnects) {
    this.subjects = subjects;
    this.onNoStream = onNoStream;
    this.streams = streams;
    this.reconnects = reconnects;
  }

  private record Pending(
      OutboxMessage message,
      String subject,
      CompletableFuture<PublishAck> ack,
      PublishException failure) {}

  /** What one call learns about the broker while its acknowledgements come in. */
  private final class Round {
    final AtomicBoolean acknowledged = new AtomicBoolean();
    final long reconnectsAtStart = reconnects.getAsLong();
    final Map<String, StreamLookup> lookups = new ConcurrentHashMap<>();
    volatile StreamLookup unavailable;

    StreamLookup lookup(String subject, Duration budget) {
      StreamLookup known = unavailable;
      if (known != null) {
        return known; // JetStream did not answer for one subject: it does not for the others
      }
      StreamLookup found = lookups.computeIfAbsent(subject, s -> streams.find(s, budget));
      if (found.kind() == StreamLookup.Kind.JETSTREAM_UNAVAILABLE) {
        unavailable = found;
      }
      return found;
    }
  }

  /**
   * Sends the batch and waits for its acknowledgements.
   *
   * @param jetStream the JetStream context of the connection
   * @param messages the batch
   * @param timeout the whole call's budget, for messages
   * @param deadline {@link System#nanoTime()} by which to stop waiting
   * @return one result per message, in order
   */
  public List<PublishResult> publish(
      JetStream jetStream, List<OutboxMessage> messages, Duration timeout, long deadline) {
    Round round = new Round();
    List<Pending> pending = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      pending.add(send(jetStream, message, round));
    }
    boolean interrupted = !awaitAll(pending, deadline);
    if (pending.stream().anyMatch(JetStreamBatch::acknowledged)) {
      round.acknowledged.set(true);
    }
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (Pending p : pending) {
      results.add(result(p, round, timeout, deadline, interrupted));
    }
    return results;
  }

  private static boolean acknowledged(Pending p) {
    return p.ack != null
        && p.ack.isDone()
        && !p.ack.isCompletedExceptionally()
        && p.ack.getNow(null) != null;
  }

  /** Waits until every acknowledgement is in or the deadline; {@code false} when interrupted. */
  private static boolean awaitAll(List<Pending> pending, long deadline) {
    CompletableFuture<?>[] acks =
        pending.stream()
            .filter(p -> p.ack != null)
            .map(Pending::ack)
            .toArray(n -> new CompletableFuture<?>[n]);
    try {
      CompletableFuture.allOf(acks)
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // one failed, or not all are in: each is looked at on its own
    }
    return true;
  }

  private PublishResult result(
      Pending p, Round round, Duration timeout, long deadline, boolean interrupted) {
    if (p.failure != null) {
      return PublishResult.failed(p.message.id(), p.failure);
    }
    if (p.ack.isDone()) {
      Duration budget = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      Duration lookupBudget = budget.compareTo(LEAST_LOOKUP) < 0 ? LEAST_LOOKUP : budget;
      return p.ack.handle((ack, error) -> settled(p, round, ack, error, lookupBudget)).join();
    }
    if (interrupted) {
      p.ack.cancel(true);
      return PublishResult.failed(
          p.message.id(),
          PublishException.retryable(p.message.id(), p.subject, "interrupted", null));
    }
    // Sent, not yet acknowledged: it may still be stored. The ack (or its failure, which the
    // client reports at its request timeout) is the final outcome; it is settled off the client's
    // threads, since a stream lookup waits for an answer.
    return PublishResult.uncertain(
        p.message.id(),
        p.subject,
        timeout,
        p.ack.handleAsync((ack, error) -> settled(p, round, ack, error, LATE_LOOKUP)));
  }

  /** The final result of an acknowledgement, or of its failure. */
  private PublishResult settled(
      Pending p, Round round, PublishAck ack, Throwable error, Duration lookupBudget) {
    if (error != null) {
      if (Failures.isNoResponders(error)) {
        StreamLookup lookup = round.lookup(p.subject, lookupBudget);
        if (lookup.kind() == StreamLookup.Kind.NO_STREAM) {
          onNoStream.run();
        }
        return PublishResult.failed(
            p.message.id(), Failures.noResponders(p.message, p.subject, lookup, error));
      }
      return PublishResult.failed(
          p.message.id(), Failures.ackFailed(p.message, p.subject, error, othersAnswered(round)));
    }
    if (ack == null || ack.getStream() == null) {
      return PublishResult.failed(
          p.message.id(),
          PublishException.retryable(
              p.message.id(),
              p.subject,
              "JetStream answered without a stream acknowledgement",
              null));
    }
    return PublishResult.published(p.message.id(), p.subject);
  }

  /**
   * Whether the broker answered other messages of the round on the same connection: after a
   * reconnect, acknowledgements of messages resent from the client's buffer say nothing about a
   * message whose answer the connection lost.
   */
  private boolean othersAnswered(Round round) {
    return round.acknowledged.get() && reconnects.getAsLong() == round.reconnectsAtStart;
  }

  private Pending send(JetStream jetStream, OutboxMessage message, Round round) {
    String subject;
    try {
      subject = subjects.apply(message);
    } catch (RuntimeException e) {
      // The application's subject function failed for this message: no retry changes that.
      return new Pending(
          message,
          null,
          null,
          PublishException.permanent(message.id(), null, "the subject function failed: " + e, e));
    }
    try {
      String problem = Subjects.problem(subject, false);
      if (problem != null) {
        throw new IllegalArgumentException("invalid subject \"" + subject + "\": " + problem);
      }
      PublishOptions publishOptions =
          PublishOptions.builder().messageId(message.id().toString()).build();
      CompletableFuture<PublishAck> ack =
          jetStream.publishAsync(WireMessages.toNats(message, subject), publishOptions);
      ack.thenRun(() -> round.acknowledged.set(true));
      return new Pending(message, subject, ack, null);
    } catch (IllegalArgumentException e) {
      return new Pending(message, subject, null, Failures.rejectedByClient(message, subject, e));
    } catch (RuntimeException e) {
      return new Pending(message, subject, null, Failures.notTaken(message, subject, e));
    }
  }
}
