package dev.outbox.kafka.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * One batch, pipelined: route every message, make sure the topics are known, send every record,
 * have them flushed in one request, then wait for the acknowledgements together until the deadline.
 * A message of an aggregate whose earlier message in the batch could not be sent is held back (a
 * retryable failure), so that a later event never overtakes an earlier one.
 */
public final class PipelinedBatch {

  private final Producer<String, byte[]> producer;
  private final KafkaPublisherOptions options;
  private final TopicMetadata metadata;
  private final Flusher flusher;
  private final List<OutboxMessage> messages;
  private final long deadlineNanos;
  private final Duration timeout;
  private final String[] topics;
  private final PublishException[] failures;
  private final List<Future<RecordMetadata>> acks;
  private final List<CompletableFuture<PublishResult>> finals;

  /**
   * Prepares a batch.
   *
   * @param producer the idempotent producer
   * @param options routing
   * @param metadata the topic lookups
   * @param flusher sends what the batch appended at once
   * @param messages the batch in position order
   * @param timeout how long the whole batch may take
   */
  public PipelinedBatch(
      Producer<String, byte[]> producer,
      KafkaPublisherOptions options,
      TopicMetadata metadata,
      Flusher flusher,
      List<OutboxMessage> messages,
      Duration timeout) {
    this.producer = producer;
    this.options = options;
    this.metadata = metadata;
    this.flusher = flusher;
    this.messages = messages;
    this.timeout = timeout;
    this.deadlineNanos = System.nanoTime() + Math.max(0, timeout.toNanos());
    this.topics = new String[messages.size()];
    this.failures = new PublishException[messages.size()];
    this.acks = new ArrayList<>(messages.size());
    this.finals = new ArrayList<>(java.util.Collections.nCopies(messages.size(), null));
  }

  /**
   * Sends the batch and waits for it.
   *
   * @return one result per message, in order
   */
  public List<PublishResult> run() {
    route();
    Map<String, Throwable> missing = new HashMap<>(metadata.check(distinctTopics(), deadlineNanos));
    send(missing);
    flusher.request();
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      results.add(result(i));
    }
    return results;
  }

  private void route() {
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      try {
        topics[i] = options.topicFor(message);
      } catch (RuntimeException e) {
        failures[i] =
            PublishException.permanent(message.id(), null, "topic router failed: " + e, e);
      }
    }
  }

  private Set<String> distinctTopics() {
    Set<String> distinct = new LinkedHashSet<>();
    for (String topic : topics) {
      if (topic != null) {
        distinct.add(topic);
      }
    }
    return distinct;
  }

  private void send(Map<String, Throwable> missing) {
    Set<String> heldBack = new HashSet<>();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      String aggregate = message.aggregateType() + '/' + message.aggregateId();
      Future<RecordMetadata> ack = null;
      if (failures[i] == null) {
        if (heldBack.contains(aggregate)) {
          failures[i] = heldBack(message, topics[i], aggregate);
        } else if (missing.containsKey(topics[i])) {
          failures[i] = KafkaFailures.classify(message.id(), topics[i], missing.get(topics[i]));
        } else {
          ack = sendOne(i, missing);
        }
      }
      if (failures[i] != null) {
        heldBack.add(aggregate);
      }
      acks.add(ack);
    }
  }

  /** Sends message {@code index}; a refusal sets its failure, a metadata timeout its topic's. */
  private Future<RecordMetadata> sendOne(int index, Map<String, Throwable> missing) {
    OutboxMessage message = messages.get(index);
    Future<RecordMetadata> ack = null;
    // The producer's callback always comes, within delivery.timeout.ms: it is the final outcome
    // of a send the batch's deadline did not see end.
    CompletableFuture<PublishResult> outcome = new CompletableFuture<>();
    String topic = topics[index];
    finals.set(index, outcome);
    try {
      ack =
          producer.send(
              RecordMapper.toRecord(message, topic),
              (metadata, error) ->
                  outcome.complete(
                      error == null
                          ? PublishResult.published(message.id(), topic)
                          : PublishResult.failed(
                              message.id(), KafkaFailures.classify(message.id(), topic, error))));
      failures[index] = refusedAtOnce(message, topics[index], ack);
    } catch (RuntimeException e) {
      failures[index] = KafkaFailures.classify(message.id(), topics[index], e);
    }
    if (failures[index] != null && failures[index].getCause() instanceof TimeoutException) {
      missing.put(topics[index], failures[index].getCause()); // don't wait again for this topic
    }
    return ack;
  }

  /**
   * The producer reports some refusals (record too large, invalid record) through a future that has
   * already failed rather than by throwing; they count as refused before sending.
   */
  private static PublishException refusedAtOnce(
      OutboxMessage message, String topic, Future<RecordMetadata> ack) {
    if (!ack.isDone()) {
      return null;
    }
    try {
      ack.get();
      return null;
    } catch (ExecutionException e) {
      return KafkaFailures.classify(message.id(), topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PublishException.retryable(message.id(), topic, "interrupted", e);
    }
  }

  private static PublishException heldBack(OutboxMessage message, String topic, String aggregate) {
    return PublishException.retryable(
        message.id(),
        topic,
        "not sent: an earlier message of " + aggregate + " in this batch failed",
        null);
  }

  private PublishResult result(int index) {
    OutboxMessage message = messages.get(index);
    if (failures[index] != null) {
      return PublishResult.failed(message.id(), failures[index]);
    }
    try {
      long remaining = Math.max(0, deadlineNanos - System.nanoTime());
      acks.get(index).get(remaining, TimeUnit.NANOSECONDS);
      return PublishResult.published(message.id(), topics[index]);
    } catch (ExecutionException e) {
      return PublishResult.failed(
          message.id(), KafkaFailures.classify(message.id(), topics[index], e.getCause()));
    } catch (java.util.concurrent.TimeoutException e) {
      // Still in the producer: it may yet land. The processor waits for the callback.
      return PublishResult.uncertain(message.id(), topics[index], timeout, finals.get(index));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PublishResult.failed(
          message.id(), PublishException.retryable(message.id(), topics[index], "interrupted", e));
    }
  }
}
