package dev.outbox.servicebus.internal;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusSenderAsyncClient;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the messages of one publish call that go to one entity: fills a {@link
 * ServiceBusMessageBatch}, sends it when full, and so on, one batch after the other so the order of
 * each aggregate holds. Once a message of an aggregate failed, the later messages of that aggregate
 * in the call are failed too (retryably) instead of overtaking it.
 */
public final class EntitySend implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(EntitySend.class);

  private final String entity;
  private final ServiceBusSenderAsyncClient sender;
  private final MessageMapper mapper;
  private final List<OutboxMessage> messages;
  private final List<Integer> indexes;
  private final AtomicReferenceArray<PublishResult> results;
  private final long deadlineNanos;
  private final Set<String> failedAggregates = new HashSet<>();

  /**
   * Prepares the send.
   *
   * @param entity the queue or topic
   * @param sender its sender
   * @param mapper maps outbox messages to Service Bus messages
   * @param messages the whole batch of the publish call
   * @param indexes the positions in {@code messages} that go to this entity, in order
   * @param results where each position's result is put
   * @param deadlineNanos {@link System#nanoTime()} at which the publish call gives up
   */
  public EntitySend(
      String entity,
      ServiceBusSenderAsyncClient sender,
      MessageMapper mapper,
      List<OutboxMessage> messages,
      List<Integer> indexes,
      AtomicReferenceArray<PublishResult> results,
      long deadlineNanos) {
    this.entity = entity;
    this.sender = sender;
    this.mapper = mapper;
    this.messages = messages;
    this.indexes = indexes;
    this.results = results;
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
      if (!inBatch.isEmpty()) {
        send(batch, inBatch);
      }
    }
  }

  private int fill(ServiceBusMessageBatch batch, int from, List<Integer> inBatch) {
    int next = from;
    while (next < indexes.size()) {
      int index = indexes.get(next);
      OutboxMessage message = messages.get(index);
      if (failedAggregates.contains(message.aggregateId())) {
        fail(index, earlierFailed(message));
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
        fail(index, Failures.of(message.id(), entity, "prepare", e));
      }
      next++;
    }
    return next;
  }

  private void send(ServiceBusMessageBatch batch, List<Integer> inBatch) {
    try {
      sender.sendMessages(batch).block(remaining());
      for (int index : inBatch) {
        results.compareAndSet(index, null, PublishResult.published(messages.get(index).id()));
      }
      LOG.debug("Sent {} messages to {}", inBatch.size(), entity);
    } catch (RuntimeException e) {
      LOG.debug("Send of {} messages to {} failed: {}", inBatch.size(), entity, e.toString());
      for (int index : inBatch) {
        OutboxMessage message = messages.get(index);
        fail(index, Failures.of(message.id(), entity, "send", e));
      }
    }
  }

  private void failFrom(int from, String what, RuntimeException e) {
    LOG.debug("{} for {} failed: {}", what, entity, e.toString());
    for (int i = from; i < indexes.size(); i++) {
      int index = indexes.get(i);
      fail(index, Failures.of(messages.get(index).id(), entity, what, e));
    }
  }

  private void fail(int index, PublishException failure) {
    OutboxMessage message = messages.get(index);
    failedAggregates.add(message.aggregateId());
    results.compareAndSet(index, null, PublishResult.failed(message.id(), failure));
  }

  private PublishException earlierFailed(OutboxMessage message) {
    return PublishException.retryable(
        message.id(),
        entity,
        "not sent: an earlier message of aggregate " + message.aggregateId() + " failed",
        null);
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
