package dev.outbox.servicebus.internal;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderAsyncClient;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the messages of one publish call that go to one entity: fills a {@link
 * ServiceBusMessageBatch}, sends it when full, and so on, one batch after the other so the order of
 * each aggregate holds. Once a message of an aggregate failed, the later messages of that aggregate
 * in the call are failed too instead of overtaking it: retryably, or with the same broker fault.
 * Once a send failed for the broker's fault ({@link Blame}), nothing more of the entity is sent in
 * the call: its other messages get the same broker fault.
 *
 * <p>A send is never cancelled: when the call's deadline passes before it completes, its messages
 * are uncertain and its completion (success, or the error the SDK reports at the latest when its
 * try timeout ends the send) is their final outcome, see {@link SendOutcomes}. Nothing of the
 * entity is sent after such a send, nor after the deadline.
 */
public final class EntitySend implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(EntitySend.class);

  private final String entity;
  private final ServiceBusSenderAsyncClient sender;
  private final MessageMapper mapper;
  private final Failures failures;
  private final List<OutboxMessage> messages;
  private final List<Integer> indexes;
  private final SendOutcomes outcomes;
  private final long deadlineNanos;
  private final Map<String, PublishException> failedAggregates = new HashMap<>();

  /**
   * Prepares the send.
   *
   * @param entity the queue or topic
   * @param sender its sender
   * @param mapper maps outbox messages to Service Bus messages
   * @param failures blames the SDK's failures
   * @param messages the whole batch of the publish call
   * @param indexes the positions in {@code messages} that go to this entity, in order
   * @param outcomes where each position's outcome goes
   * @param deadlineNanos {@link System#nanoTime()} at which the publish call gives up
   */
  public EntitySend(
      String entity,
      ServiceBusSenderAsyncClient sender,
      MessageMapper mapper,
      Failures failures,
      List<OutboxMessage> messages,
      List<Integer> indexes,
      SendOutcomes outcomes,
      long deadlineNanos) {
    this.entity = entity;
    this.sender = sender;
    this.mapper = mapper;
    this.failures = failures;
    this.messages = messages;
    this.indexes = indexes;
    this.outcomes = outcomes;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public void run() {
    int next = 0;
    while (next < indexes.size()) {
      ServiceBusMessageBatch batch;
      try {
        batch = sender.createMessageBatch().block(remaining());
      } catch (RuntimeException e) {
        failFrom(next, "create batch", e);
        return;
      }
      List<Integer> inBatch = new ArrayList<>();
      next = fill(batch, next, inBatch);
      if (inBatch.isEmpty()) {
        continue;
      }
      PublishException brokerFault;
      try {
        brokerFault = send(batch, inBatch);
      } catch (TimeoutException e) {
        notSentFrom(next);
        return;
      }
      if (brokerFault != null) {
        for (int i = next; i < indexes.size(); i++) {
          int index = indexes.get(i);
          fail(index, Failures.notSentAfter(messages.get(index).id(), entity, brokerFault));
        }
        return;
      }
    }
  }

  private int fill(ServiceBusMessageBatch batch, int from, List<Integer> inBatch) {
    int next = from;
    while (next < indexes.size()) {
      int index = indexes.get(next);
      OutboxMessage message = messages.get(index);
      PublishException earlier = failedAggregates.get(message.aggregateId());
      if (earlier != null) {
        fail(index, earlierFailed(message, earlier));
        next++;
        continue;
      }
      try {
        ServiceBusMessage mapped = mapper.map(message);
        if (!batch.tryAddMessage(mapped)) {
          if (!inBatch.isEmpty()) {
            return next;
          }
          fail(index, tooLarge(message, batch));
        } else {
          inBatch.add(index);
        }
      } catch (RuntimeException e) {
        fail(index, failures.of(message.id(), entity, "prepare", e));
      }
      next++;
    }
    return next;
  }

  /**
   * Sends one batch and waits for it until the deadline.
   *
   * @return {@code null} when it completed in time (sent, or failed for its messages' fault), so
   *     the next may go; the failure when it failed for the broker's fault
   * @throws TimeoutException when it did not complete in time, or the deadline had passed
   */
  private PublishException send(ServiceBusMessageBatch batch, List<Integer> inBatch)
      throws TimeoutException {
    if (!outcomes.start(inBatch)) {
      inBatch.forEach(index -> fail(index, notSent(index)));
      throw new TimeoutException();
    }
    CompletableFuture<Void> sent;
    try {
      // Subscribed here and never cancelled: the SDK's answer is the final outcome even when it
      // comes after the deadline.
      sent = sender.sendMessages(batch).toFuture();
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete((done, error) -> settle(inBatch, error));
    try {
      sent.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      settle(inBatch, null); // final now, whichever thread runs the callback
      LOG.debug("Sent {} messages to {}", inBatch.size(), entity);
      return null;
    } catch (ExecutionException e) {
      settle(inBatch, e.getCause());
      LOG.debug("Send of {} messages to {} failed: {}", inBatch.size(), entity, e.getCause());
      PublishException failure =
          failures.sendFailed(messages.get(inBatch.get(0)).id(), entity, unwrap(e.getCause()));
      inBatch.forEach(index -> failedAggregates.put(messages.get(index).aggregateId(), failure));
      return failure.isBrokerFault() ? failure : null;
    } catch (TimeoutException e) {
      LOG.debug("No answer to the send of {} messages to {} in time", inBatch.size(), entity);
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TimeoutException("interrupted");
    }
  }

  /** The final outcome of the messages of a send, from its completion. */
  private void settle(List<Integer> inBatch, Throwable error) {
    Throwable cause = unwrap(error);
    for (int index : inBatch) {
      UUID id = messages.get(index).id();
      outcomes.complete(
          index,
          cause == null
              ? PublishResult.published(id, entity)
              : PublishResult.failed(id, failures.sendFailed(id, entity, cause)));
    }
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  private void failFrom(int from, String what, RuntimeException e) {
    LOG.debug("{} for {} failed: {}", what, entity, e.toString());
    for (int i = from; i < indexes.size(); i++) {
      int index = indexes.get(i);
      fail(index, failures.of(messages.get(index).id(), entity, what, e));
    }
  }

  private void notSentFrom(int from) {
    for (int i = from; i < indexes.size(); i++) {
      int index = indexes.get(i);
      fail(index, notSent(index));
    }
  }

  private void fail(int index, PublishException failure) {
    OutboxMessage message = messages.get(index);
    failedAggregates.putIfAbsent(message.aggregateId(), failure);
    outcomes.fail(index, failure);
  }

  private PublishException notSent(int index) {
    return Failures.notSent(messages.get(index).id(), entity);
  }

  private PublishException earlierFailed(OutboxMessage message, PublishException earlier) {
    String text = "not sent: an earlier message of aggregate " + message.aggregateId() + " failed";
    return earlier.isBrokerFault()
        ? PublishException.brokerUnavailable(
            message.id(), entity, text + ": " + earlier.reason(), earlier.getCause())
        : PublishException.retryable(message.id(), entity, text, null);
  }

  private PublishException tooLarge(OutboxMessage message, ServiceBusMessageBatch batch) {
    return PublishException.permanent(
        message.id(),
        entity,
        "message too large: does not fit an empty batch of "
            + batch.getMaxSizeInBytes()
            + " bytes (payload "
            + message.payloadBytes().length
            + " bytes)",
        null);
  }

  private Duration remaining() {
    long nanos = deadlineNanos - System.nanoTime();
    return Duration.ofNanos(Math.max(nanos, 1_000_000));
  }
}
