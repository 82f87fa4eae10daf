package dev.outbox.rabbitmq.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The confirms of one batch in flight on one channel. Each message is expected under its publish
 * sequence number; {@code basic.return}s are matched by message id and remembered until that
 * message's ack arrives (the broker sends the return first, on the same channel), so that a
 * returned message fails even though the broker acks it. Thread-safe: the channel's I/O thread
 * reports, the publishing thread waits.
 */
final class BatchConfirms {

  private final List<OutboxMessage> batch;
  private final String exchange;
  private final PublishResult[] results;
  private final Map<String, Integer> indexById = new HashMap<>();
  private final NavigableMap<Long, Integer> pending = new TreeMap<>();
  private final Map<Integer, String> returned = new HashMap<>();

  BatchConfirms(List<OutboxMessage> batch, String exchange) {
    this.batch = batch;
    this.exchange = exchange;
    this.results = new PublishResult[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      indexById.put(batch.get(i).id().toString(), i);
    }
  }

  /** Message {@code index} is about to be sent under publish sequence number {@code seqNo}. */
  synchronized void expect(long seqNo, int index) {
    pending.put(seqNo, index);
  }

  /** Message {@code index} was not sent (or its send failed). */
  synchronized void fail(int index, PublishException failure) {
    pending.values().remove(index);
    settle(index, failure);
    notifyAll();
  }

  /** The broker returned a message as unroutable; its ack follows. */
  synchronized void returned(String messageId, int replyCode, String replyText, String key) {
    Integer index = messageId == null ? null : indexById.get(messageId);
    if (index != null && results[index] == null) {
      returned.put(
          index,
          "unroutable: no queue is bound to exchange '"
              + exchange
              + "' for routing key '"
              + key
              + "' (basic.return "
              + replyCode
              + ' '
              + replyText
              + ')');
    }
  }

  /** A positive or negative publisher confirm. */
  synchronized void confirmed(long seqNo, boolean multiple, boolean ack) {
    Map<Long, Integer> confirmed =
        multiple ? pending.headMap(seqNo, true) : pending.subMap(seqNo, true, seqNo, true);
    for (Integer index : new ArrayList<>(confirmed.values())) {
      settle(index, ack ? returnedFailure(index) : nackFailure(index));
    }
    confirmed.clear();
    notifyAll();
  }

  /** Fails everything not yet confirmed: the channel closed, or time ran out. */
  synchronized void abort(boolean retryable, String reason, Throwable cause) {
    for (Integer index : pending.values()) {
      OutboxMessage message = batch.get(index);
      settle(index, new PublishException(message.id(), exchange, retryable, reason, cause));
    }
    pending.clear();
    notifyAll();
  }

  /**
   * Waits until every sent message is confirmed or failed.
   *
   * @param deadlineNanos the {@link System#nanoTime()} to give up at
   * @return {@code true} when nothing is pending any more
   */
  synchronized boolean await(long deadlineNanos) throws InterruptedException {
    long left;
    while (!pending.isEmpty() && (left = deadlineNanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return pending.isEmpty();
  }

  /** One result per message, in batch order; a message never sent counts as a retryable failure. */
  synchronized List<PublishResult> results() {
    List<PublishResult> list = new ArrayList<>(results.length);
    for (int i = 0; i < results.length; i++) {
      PublishResult result = results[i];
      if (result == null) {
        UUID id = batch.get(i).id();
        result =
            PublishResult.failed(
                id, PublishException.retryable(id, exchange, "not sent to RabbitMQ", null));
      }
      list.add(result);
    }
    return list;
  }

  private PublishException returnedFailure(int index) {
    String reason = returned.remove(index);
    return reason == null
        ? null
        : PublishException.retryable(batch.get(index).id(), exchange, reason, null);
  }

  private PublishException nackFailure(int index) {
    return PublishException.retryable(
        batch.get(index).id(),
        exchange,
        "RabbitMQ refused the message (negative publisher confirm)",
        null);
  }

  private void settle(int index, PublishException failure) {
    if (results[index] == null) {
      UUID id = batch.get(index).id();
      results[index] =
          failure == null ? PublishResult.published(id) : PublishResult.failed(id, failure);
    }
  }
}
