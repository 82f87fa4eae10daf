package dev.outbox.servicebus;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.servicebus.internal.EntitySend;
import dev.outbox.servicebus.internal.Failures;
import dev.outbox.servicebus.internal.MessageMapper;
import dev.outbox.servicebus.internal.SendOutcomes;
import dev.outbox.servicebus.internal.Senders;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EventPublisher} for Azure Service Bus, on the official SDK ({@code
 * azure-messaging-servicebus}). Each batch goes out as {@code ServiceBusMessageBatch}es per entity
 * (a new one when the previous is full), the entities in parallel, the batches of one entity one
 * after the other. A message counts as published when its batch's send completed.
 *
 * <p>On the wire: {@code MessageId} = outbox id (duplicate detection uses it), {@code Subject} =
 * event type, {@code ContentType}, {@code CorrelationId} from a row header, {@code SessionId} (when
 * {@link ServiceBusPublisherOptions#sessionEnabled()}) or {@code PartitionKey} = aggregate id, and
 * every {@link dev.outbox.spi.WireHeaders} header as an application property.
 *
 * <p>{@link #publish} never throws and returns within its timeout. A message whose send started but
 * has not completed by then is {@linkplain PublishResult#isUncertain() uncertain}: Service Bus may
 * still store it. The send is not cancelled; its completion is the message's {@linkplain
 * PublishResult#finalOutcome() final outcome} (published, or failed as classified below), and comes
 * at the latest when the SDK's {@linkplain ServiceBusPublisherOptions#tryTimeout() try timeout}
 * ends the send (for each of its {@linkplain ServiceBusPublisherOptions#maxRetries() retries}), or
 * when the publisher is closed.
 *
 * <p>Each failure says whose fault it is ({@link PublishException#isBrokerFault()}). Service Bus or
 * the connection failed (unreachable, connection lost or refused, busy, timing out, the entity
 * full, the credentials or their Send right refused, the publisher closed), or the publish timeout
 * ran out before a send could start: a broker fault, which counts no attempt. Service Bus refused
 * the message: too large (permanent), its entity missing or disabled, or anything else the SDK
 * reports (retryable). Refused credentials say so and name the key ({@code SharedAccessKeyName}),
 * never the key or the connection string. See {@code Blame} for the rules.
 */
public final class ServiceBusEventPublisher implements EventPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusEventPublisher.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ServiceBusPublisherOptions options;
  private final Senders senders;
  private final MessageMapper mapper;
  private final Failures failures;
  private final ExecutorService executor;
  private final Map<CompletableFuture<PublishResult>, PublishResult> uncertain =
      new ConcurrentHashMap<>();
  private volatile boolean closed;

  private ServiceBusEventPublisher(ServiceBusPublisherOptions options) {
    this.options = options;
    this.senders = new Senders(options);
    this.mapper = new MessageMapper(options.sessionEnabled(), options.correlationIdHeader());
    this.failures = Failures.forOptions(options);
    this.executor =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, "outbox-servicebus-" + THREADS.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * A publisher. Does no I/O: the SDK connects on the first publish, so the outbox starts while
   * Service Bus is unreachable.
   *
   * @param options connection and routing
   * @return the publisher
   */
  public static ServiceBusEventPublisher create(ServiceBusPublisherOptions options) {
    return new ServiceBusEventPublisher(Objects.requireNonNull(options, "options"));
  }

  /** {@return {@code servicebus}, its name in the OpenTelemetry messaging conventions} */
  @Override
  public String messagingSystem() {
    return "servicebus";
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    SendOutcomes outcomes = new SendOutcomes(messages);
    if (closed) {
      return outcomes.results(
          timeout,
          i -> null,
          i ->
              PublishException.brokerUnavailable(
                  messages.get(i).id(), null, "the publisher is closed", null));
    }
    Map<String, List<Integer>> byEntity = new LinkedHashMap<>();
    String[] entityOf = new String[messages.size()];
    for (int i = 0; i < messages.size(); i++) {
      String entity = resolve(messages.get(i), i, outcomes);
      if (entity != null) {
        byEntity.computeIfAbsent(entity, e -> new ArrayList<>()).add(i);
        entityOf[i] = entity;
      }
    }
    List<Future<?>> running = new ArrayList<>();
    try {
      byEntity.forEach(
          (entity, indexes) ->
              running.add(
                  executor.submit(
                      new EntitySend(
                          entity,
                          senders.sender(entity),
                          mapper,
                          failures,
                          messages,
                          indexes,
                          outcomes,
                          deadline))));
    } catch (RuntimeException e) {
      LOG.warn("Could not start sending to Service Bus: {}", e.toString());
    }
    awaitAll(running, deadline);
    List<PublishResult> results =
        outcomes.results(
            timeout, i -> entityOf[i], i -> Failures.notSent(messages.get(i).id(), entityOf[i]));
    for (PublishResult result : results) {
      if (result.isUncertain()) {
        track(result);
      }
    }
    return results;
  }

  private String resolve(OutboxMessage message, int index, SendOutcomes outcomes) {
    try {
      String entity = options.entityResolver().apply(message);
      if (entity == null || entity.isBlank()) {
        throw new IllegalArgumentException("the entity resolver returned no entity");
      }
      return entity;
    } catch (RuntimeException e) {
      outcomes.fail(
          index,
          PublishException.permanent(message.id(), null, "no entity: " + Failures.describe(e), e));
      return null;
    }
  }

  /**
   * Waits for the entity sends until the deadline. They are not interrupted: each stops by itself
   * at the deadline, and a send it started is never cancelled (its messages are uncertain).
   */
  private static void awaitAll(List<Future<?>> running, long deadline) {
    for (Future<?> future : running) {
      try {
        future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        // still starting or waiting: it stops at the deadline on its own
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        LOG.warn("Sending to Service Bus failed unexpectedly: {}", e.toString());
      }
    }
  }

  /** Remembers an uncertain send until its final outcome, so that closing can complete it. */
  private void track(PublishResult result) {
    CompletableFuture<PublishResult> outcome = result.finalOutcome().toCompletableFuture();
    uncertain.put(outcome, result);
    outcome.whenComplete((last, failure) -> uncertain.remove(outcome));
    if (closed) {
      completeUncertain();
    }
  }

  /**
   * Closes the senders and their connection. Calling it again does nothing. The final outcome of a
   * send still unanswered becomes a failure first, the broker's fault (no message is to blame):
   * closing the sender ends the send without an answer, so Service Bus may or may not have the
   * message.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    executor.shutdownNow();
    completeUncertain();
    try {
      senders.close();
    } catch (RuntimeException e) {
      LOG.warn("Closing the Service Bus senders failed: {}", e.toString());
    }
  }

  private void completeUncertain() {
    uncertain.forEach(
        (outcome, result) ->
            outcome.complete(
                PublishResult.failed(
                    result.messageId(),
                    PublishException.brokerUnavailable(
                        result.messageId(),
                        result.destination(),
                        "the publisher closed before Service Bus answered the send; Service Bus"
                            + " may or may not have the message",
                        null))));
  }

  @Override
  public String toString() {
    return "ServiceBusEventPublisher[" + options + ']';
  }
}
