package dev.outbox.kafka.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.kafka.KafkaPublisherOptions;
import dev.outbox.kafka.internal.ClusterContact.Mark;
import dev.outbox.kafka.internal.TopicMetadata.Missing;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * A message of an aggregate whose earlier message in the batch could not be sent is held back, so
 * that a later event never overtakes an earlier one: with the broker's fault when the earlier one
 * failed for the broker, as a retryable failure of the message otherwise. Failures are classified
 * by {@link KafkaFailures}, with what the cluster answered since the batch began ({@link
 * ClusterContact}).
 */
public final class PipelinedBatch {

  private final Producer<String, byte[]> producer;
  private final KafkaPublisherOptions options;
  private final TopicMetadata metadata;
  private final Flusher flusher;
  private final ClusterContact contact;
  private final KafkaFailures classifier;
  private final Mark start;
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
   * @param client the idempotent producer and its helpers
   * @param options routing
   * @param messages the batch in position order
   * @param timeout how long the whole batch may take
   */
  public PipelinedBatch(
      ProducerClient client,
      KafkaPublisherOptions options,
      List<OutboxMessage> messages,
      Duration timeout) {
    this.producer = client.producer();
    this.options = options;
    this.metadata = client.metadata();
    this.flusher = client.flusher();
    this.contact = client.contact();
    this.classifier = client.failures();
    this.start = contact.mark();
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
    Map<String, Missing> missing = new HashMap<>(metadata.check(distinctTopics(), deadlineNanos));
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

  private void send(Map<String, Missing> missing) {
    Map<String, PublishException> heldBack = new HashMap<>();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      String aggregate = message.aggregateType() + '/' + message.aggregateId();
      Future<RecordMetadata> ack = null;
      if (failures[i] == null) {
        if (heldBack.containsKey(aggregate)) {
          failures[i] = heldBack(message, topics[i], aggregate, heldBack.get(aggregate));
        } else if (missing.containsKey(topics[i])) {
          Missing why = missing.get(topics[i]);
          failures[i] = classifier.classify(message.id(), topics[i], why.cause(), why::seen);
        } else {
          ack = sendOne(i, missing);
        }
      }
      if (failures[i] != null) {
        heldBack.putIfAbsent(aggregate, failures[i]);
      }
      acks.add(ack);
    }
  }

  /** Sends message {@code index}; a refusal sets its failure, a metadata timeout its topic's. */
  private Future<RecordMetadata> sendOne(int index, Map<String, Missing> missing) {
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
                          : PublishResult.failed(message.id(), classify(index, error))));
      failures[index] = refusedAtOnce(index, ack);
    } catch (RuntimeException e) {
      failures[index] = classify(index, e);
    }
    if (failures[index] != null && failures[index].getCause() instanceof TimeoutException) {
      // don't wait again for this topic
      missing.put(topics[index], new Missing(failures[index].getCause(), contact.since(start)));
    }
    return ack;
  }

  /**
   * The producer reports some refusals (record too large, invalid record) through a future that has
   * already failed rather than by throwing; they count as refused before sending.
   */
  private PublishException refusedAtOnce(int index, Future<RecordMetadata> ack) {
    if (!ack.isDone()) {
      return null;
    }
    try {
      ack.get();
      return null;
    } catch (ExecutionException e) {
      return classify(index, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return classify(index, e);
    }
  }

  /** A failure of message {@code index}, with what the cluster answered since the batch began. */
  private PublishException classify(int index, Throwable failure) {
    return classifier.classify(
        messages.get(index).id(), topics[index], failure, () -> contact.since(start));
  }

  /** Held back behind {@code earlier}: the broker's fault if that one was, the message's if not. */
  private static PublishException heldBack(
      OutboxMessage message, String topic, String aggregate, PublishException earlier) {
    String reason = "not sent: an earlier message of " + aggregate + " in this batch failed";
    return earlier.isBrokerFault()
        ? PublishException.brokerUnavailable(
            message.id(), topic, reason + " for the broker: " + earlier.getMessage(), null)
        : PublishException.retryable(message.id(), topic, reason, null);
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
      return PublishResult.failed(message.id(), classify(index, e.getCause()));
    } catch (java.util.concurrent.TimeoutException e) {
      // Still in the producer: it may yet land. The processor waits for the callback.
      return PublishResult.uncertain(message.id(), topics[index], timeout, finals.get(index));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PublishResult.failed(message.id(), classify(index, e));
    }
  }
}
