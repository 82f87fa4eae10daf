package dev.outbox.servicebus;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.servicebus.internal.EntitySend;
import dev.outbox.servicebus.internal.Failures;
import dev.outbox.servicebus.internal.MessageMapper;
import dev.outbox.servicebus.internal.Senders;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * <p>{@link #publish} never throws and returns within its timeout: what was not acknowledged by
 * then is a retryable failure. Quota, size and authorization errors are not retryable; any other
 * exception of the SDK is.
 */
public final class ServiceBusEventPublisher implements EventPublisher {

  private static final Logger LOG = LoggerFactory.getLogger(ServiceBusEventPublisher.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ServiceBusPublisherOptions options;
  private final Senders senders;
  private final MessageMapper mapper;
  private final ExecutorService executor;
  private volatile boolean closed;

  private ServiceBusEventPublisher(ServiceBusPublisherOptions options) {
    this.options = options;
    this.senders = new Senders(options);
    this.mapper = new MessageMapper(options.sessionEnabled(), options.correlationIdHeader());
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

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    AtomicReferenceArray<PublishResult> results = new AtomicReferenceArray<>(messages.size());
    if (closed) {
      return fillMissing(messages, results, "the publisher is closed", Map.of());
    }
    Map<String, List<Integer>> byEntity = new LinkedHashMap<>();
    Map<Integer, String> entityOf = new java.util.HashMap<>();
    for (int i = 0; i < messages.size(); i++) {
      String entity = resolve(messages.get(i), i, results);
      if (entity != null) {
        byEntity.computeIfAbsent(entity, e -> new ArrayList<>()).add(i);
        entityOf.put(i, entity);
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
                          messages,
                          indexes,
                          results,
                          deadline))));
    } catch (RuntimeException e) {
      LOG.warn("Could not start sending to Service Bus: {}", e.toString());
    }
    awaitAll(running, deadline);
    return fillMissing(messages, results, null, entityOf);
  }

  private String resolve(
      OutboxMessage message, int index, AtomicReferenceArray<PublishResult> results) {
    try {
      String entity = options.entityResolver().apply(message);
      if (entity == null || entity.isBlank()) {
        throw new IllegalArgumentException("the entity resolver returned no entity");
      }
      return entity;
    } catch (RuntimeException e) {
      results.set(
          index,
          PublishResult.failed(
              message.id(),
              PublishException.permanent(
                  message.id(), null, "no entity: " + Failures.describe(e), e)));
      return null;
    }
  }

  private static void awaitAll(List<Future<?>> running, long deadline) {
    for (Future<?> future : running) {
      try {
        future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        future.cancel(true);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        future.cancel(true);
      } catch (Exception e) {
        LOG.warn("Sending to Service Bus failed unexpectedly: {}", e.toString());
      }
    }
  }

  private static List<PublishResult> fillMissing(
      List<OutboxMessage> messages,
      AtomicReferenceArray<PublishResult> results,
      String reason,
      Map<Integer, String> entityOf) {
    List<PublishResult> list = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishException failure =
          reason != null
              ? PublishException.retryable(message.id(), null, reason, null)
              : Failures.timedOut(message.id(), entityOf.get(i));
      results.compareAndSet(i, null, PublishResult.failed(message.id(), failure));
      list.add(results.get(i));
    }
    return list;
  }

  /** Closes the senders and their connection. Calling it again does nothing. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    executor.shutdownNow();
    try {
      senders.close();
    } catch (RuntimeException e) {
      LOG.warn("Closing the Service Bus senders failed: {}", e.toString());
    }
  }

  @Override
  public String toString() {
    return "ServiceBusEventPublisher[" + options + ']';
  }
}
