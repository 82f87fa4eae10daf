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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One batch on JetStream: every message sent with {@code publishAsync} first (in order, on one
 * connection, so the stream stores them in order), then the acknowledgements awaited together until
 * one shared deadline. A duplicate acknowledgement (the stream already holds that {@code
 * Nats-Msg-Id}) counts as published.
 */
public final class JetStreamBatch {

  private final Function<OutboxMessage, String> subjects;
  private final Runnable onNoStream;

  /**
   * A batch sender.
   *
   * @param subjects resolves each message's subject
   * @param onNoStream called when a message found no stream
   */
  public JetStreamBatch(Function<OutboxMessage, String> subjects, Runnable onNoStream) {
    this.subjects = subjects;
    this.onNoStream = onNoStream;
  }

  private record Pending(
      OutboxMessage message,
      String subject,
      CompletableFuture<PublishAck> ack,
      PublishException failure) {}

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
    List<Pending> pending = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      pending.add(send(jetStream, message));
    }
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (Pending p : pending) {
      results.add(result(p, timeout, deadline));
    }
    return results;
  }

  private PublishResult result(Pending p, Duration timeout, long deadline) {
    if (p.failure != null) {
      return PublishResult.failed(p.message.id(), p.failure);
    }
    try {
      long remaining = Math.max(0, deadline - System.nanoTime());
      return settled(p, p.ack.get(remaining, TimeUnit.NANOSECONDS), null);
    } catch (TimeoutException e) {
      // Sent, not yet acknowledged: it may still be stored. The ack (or its failure, which the
      // client reports at its request timeout) is the final outcome.
      return PublishResult.uncertain(
          p.message.id(), p.subject, timeout, p.ack.handle((ack, error) -> settled(p, ack, error)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.ack.cancel(true);
      return PublishResult.failed(
          p.message.id(), PublishException.retryable(p.message.id(), p.subject, "interrupted", e));
    } catch (ExecutionException | RuntimeException e) {
      return settled(p, null, e);
    }
  }

  /** The final result of an acknowledgement, or of its failure. */
  private PublishResult settled(Pending p, PublishAck ack, Throwable error) {
    if (error != null) {
      if (Failures.isNoResponders(error)) {
        onNoStream.run();
      }
      return PublishResult.failed(p.message.id(), Failures.ackFailed(p.message, p.subject, error));
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

  private Pending send(JetStream jetStream, OutboxMessage message) {
    String subject = null;
    try {
      subject = subjects.apply(message);
      String problem = Subjects.problem(subject, false);
      if (problem != null) {
        throw new IllegalArgumentException("invalid subject \"" + subject + "\": " + problem);
      }
      PublishOptions publishOptions =
          PublishOptions.builder().messageId(message.id().toString()).build();
      CompletableFuture<PublishAck> ack =
          jetStream.publishAsync(WireMessages.toNats(message, subject), publishOptions);
      return new Pending(message, subject, ack, null);
    } catch (IllegalArgumentException e) {
      return new Pending(message, subject, null, Failures.rejectedByClient(message, subject, e));
    } catch (RuntimeException e) {
      PublishException failure =
          PublishException.retryable(
              message.id(), subject, "NATS did not take the message: " + e.getMessage(), e);
      return new Pending(message, subject, null, failure);
    }
  }
}
