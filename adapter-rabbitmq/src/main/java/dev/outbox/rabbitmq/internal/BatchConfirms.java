package dev.outbox.rabbitmq.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The confirms of one batch in flight on one channel. Each message is expected under its publish
 * sequence number; {@code basic.return}s are matched by message id and remembered until that
 * message's ack arrives (the broker sends the return first, on the same channel), so that a
 * returned message fails even though the broker acks it. Thread-safe: the channel's I/O thread
 * reports, the publishing thread waits.
 *
 * <p>A message still unconfirmed when the publishing thread gives up waiting ({@link #timedOut})
 * was published on the channel and may still be stored: it becomes <em>uncertain</em>, and the
 * confirm, nack or return that comes later, or the channel closing ({@link #abort}), completes its
 * final outcome. Final outcomes are completed outside this object's lock, so that what depends on
 * them never runs while the channel's I/O thread holds it.
 */
final class BatchConfirms {

  /** Said of every message that was published but not confirmed when its channel closed. */
  static final String MAY_HAVE_LANDED =
      "; it was published without a confirm, so the broker may or may not have it";

  private final List<OutboxMessage> batch;
  private final String exchange;
  private final PublishResult[] results;
  private final List<CompletableFuture<PublishResult>> finals;
  private final Map<String, Integer> indexById = new HashMap<>();
  private final NavigableMap<Long, Integer> pending = new TreeMap<>();
  private final Map<Integer, String> returned = new HashMap<>();
  private final List<Runnable> completions = new ArrayList<>();
  private final CompletableFuture<Void> settled = new CompletableFuture<>();
  private int uncertain;
  private Blame unsentBlame = Blame.BROKER;
  private String unsentReason;

  BatchConfirms(List<OutboxMessage> batch, String exchange) {
    this.batch = batch;
    this.exchange = exchange;
    this.results = new PublishResult[batch.size()];
    this.finals = new ArrayList<>(java.util.Collections.nCopies(batch.size(), null));
    for (int i = 0; i < batch.size(); i++) {
      indexById.put(batch.get(i).id().toString(), i);
    }
  }

  /** Message {@code index} is about to be sent under publish sequence number {@code seqNo}. */
  synchronized void expect(long seqNo, int index) {
    pending.put(seqNo, index);
  }

  /** Message {@code index} was not sent (or its send failed). */
  void fail(int index, PublishException failure) {
    synchronized (this) {
      pending.values().remove(index);
      settle(index, failure);
      notifyAll();
    }
    runCompletions();
  }

  /** The broker returned a message as unroutable; its ack follows. */
  synchronized void returned(String messageId, int replyCode, String replyText, String key) {
    Integer index = messageId == null ? null : indexById.get(messageId);
    if (index != null && (results[index] == null || finals.get(index) != null)) {
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
  void confirmed(long seqNo, boolean multiple, boolean ack) {
    synchronized (this) {
      Map<Long, Integer> confirmed =
          multiple ? pending.headMap(seqNo, true) : pending.subMap(seqNo, true, seqNo, true);
      for (Integer index : new ArrayList<>(confirmed.values())) {
        settle(index, ack ? returnedFailure(index) : nackFailure(index));
      }
      confirmed.clear();
      notifyAll();
    }
    runCompletions();
  }

  /**
   * Fails everything not yet confirmed: the channel closed, or the publisher gave up on it. What is
   * not sent yet will not be: {@link #results()} fails it with the same blame. Unless the broker
   * refused the publish outright (a refused permission), the failure says that the broker may or
   * may not have the message.
   *
   * @param blame whose fault it is
   * @param mayHaveLanded whether the broker may have stored what it did not confirm
   * @param reason why, for the messages
   * @param cause the client's exception, or {@code null}
   */
  void abort(Blame blame, boolean mayHaveLanded, String reason, Throwable cause) {
    String text = mayHaveLanded ? reason + MAY_HAVE_LANDED : reason;
    synchronized (this) {
      for (Integer index : pending.values()) {
        settle(index, blame.failure(batch.get(index).id(), exchange, text, cause));
      }
      pending.clear();
      if (unsentReason == null) {
        unsentBlame = blame;
        unsentReason = "not sent to RabbitMQ: " + reason;
      }
      notifyAll();
    }
    runCompletions();
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

  /**
   * The publishing thread stops waiting: every message still unconfirmed becomes uncertain, its
   * final outcome left to the later confirm, nack or return, or to {@link #abort}.
   *
   * @param waited how long the publisher waited, for the results
   * @return one result per message, in batch order
   */
  synchronized List<PublishResult> timedOut(Duration waited) {
    for (Integer index : pending.values()) {
      CompletableFuture<PublishResult> outcome = new CompletableFuture<>();
      finals.set(index, outcome);
      results[index] = PublishResult.uncertain(batch.get(index).id(), exchange, waited, outcome);
      uncertain++;
    }
    if (uncertain == 0) {
      settled.complete(null);
    }
    return results();
  }

  /** Whether some message is uncertain and has no final outcome yet. */
  synchronized boolean inDoubt() {
    return uncertain > 0;
  }

  /**
   * Completes when no uncertain message waits for its final outcome any more (at once when there
   * never was one after {@link #timedOut}).
   */
  CompletionStage<Void> settled() {
    return settled;
  }

  /**
   * One result per message, in batch order. A message never sent fails as the batch stopped (see
   * {@link #abort}); when nothing stopped it, the publisher did not reach the broker: a broker
   * fault.
   */
  synchronized List<PublishResult> results() {
    List<PublishResult> list = new ArrayList<>(results.length);
    for (int i = 0; i < results.length; i++) {
      PublishResult result = results[i];
      if (result == null) {
        UUID id = batch.get(i).id();
        String reason = unsentReason == null ? "not sent to RabbitMQ" : unsentReason;
        result = PublishResult.failed(id, unsentBlame.failure(id, exchange, reason, null));
      }
      list.add(result);
    }
    return list;
  }

  private PublishException returnedFailure(int index) {
    String reason = returned.remove(index);
    return reason == null
        ? null
        : Blame.MESSAGE_RETRYABLE.failure(batch.get(index).id(), exchange, reason, null);
  }

  /**
   * A nack: RabbitMQ could not store the message (a queue full with {@code reject-publish}, an
   * internal error), which is the broker's state, not what the message holds: counting attempts
   * would dead-letter a backlog while consumers are down.
   */
  private PublishException nackFailure(int index) {
    return Blame.BROKER.failure(
        batch.get(index).id(),
        exchange,
        "RabbitMQ refused the message (negative publisher confirm: a queue full with"
            + " reject-publish, or an internal error)",
        null);
  }

  /** Records a final result; for an uncertain message, completes its final outcome (later). */
  private void settle(int index, PublishException failure) {
    UUID id = batch.get(index).id();
    PublishResult result =
        failure == null ? PublishResult.published(id, exchange) : PublishResult.failed(id, failure);
    CompletableFuture<PublishResult> outcome = finals.get(index);
    if (outcome != null) {
      finals.set(index, null);
      completions.add(() -> outcome.complete(result));
      if (--uncertain == 0) {
        completions.add(() -> settled.complete(null));
      }
    } else if (results[index] == null) {
      results[index] = result;
    }
  }

  /** Completes the final outcomes settled so far, outside the lock. */
  private void runCompletions() {
    List<Runnable> due;
    synchronized (this) {
      if (completions.isEmpty()) {
        return;
      }
      due = new ArrayList<>(completions);
      completions.clear();
    }
    due.forEach(Runnable::run);
  }
}
