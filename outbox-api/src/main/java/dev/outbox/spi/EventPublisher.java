package dev.outbox.spi;

import dev.outbox.OutboxMessage;
import java.time.Duration;
import java.util.List;

/**
 * Sends outbox messages to a broker. Each broker adapter implements it; the processor calls it with
 * one claimed batch at a time, never with two batches of one aggregate at once.
 *
 * <p>A message counts as published only once the broker acknowledged it (Kafka ack, RabbitMQ
 * publisher confirm, JetStream publish ack, Service Bus send completion). A message the broker
 * cannot route or refuses is a failure, never a success.
 *
 * <p>Implementations are thread-safe and send the batch pipelined: all messages first, then wait
 * for the acknowledgements together, keeping the order of the messages of one aggregate.
 *
 * <p>A failure says whose fault it is ({@link dev.outbox.PublishException.Fault}): a failure of the
 * broker or the connection ({@link dev.outbox.PublishException#brokerUnavailable}) counts no
 * attempt and holds the outbox until the broker takes a message again; a failure of the message
 * counts an attempt. Report every failure in the results: a publisher that throws fails its whole
 * batch as the broker's fault, so a message that makes it throw holds the outbox instead of going
 * to the dead letters. {@code dev.outbox.testkit.EventPublisherContract} checks both on the real
 * broker.
 */
public interface EventPublisher extends AutoCloseable {

  /**
   * Publishes a batch.
   *
   * @param messages the batch, in position order
   * @param timeout how long the whole call may take; a message with no final answer by then is
   *     reported as a broker fault, or as {@linkplain PublishResult#uncertain uncertain} while the
   *     client still holds the send
   * @return exactly one result per message, in the order of {@code messages}
   */
  List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout);

  /**
   * The broker, as the OpenTelemetry messaging conventions name it in {@code messaging.system}
   * ({@code kafka}, {@code rabbitmq}, {@code servicebus}, {@code nats}). Publish spans carry it.
   *
   * @return the broker's name; {@code unknown} unless the adapter says
   */
  default String messagingSystem() {
    return "unknown";
  }

  /**
   * Gives up the broker client and opens a new one for the next publish. The processor calls it
   * when a send had no final outcome within the hard cap of twice the publish timeout: the client
   * is taken to be stuck. Closing it at once makes what it still holds fail, instead of landing
   * while the processor sends those messages again (they are sent again a lease later in any case);
   * sends of other batches on the old client fail too and are retried. Must be thread-safe: it runs
   * on a thread of the processor's while publish calls may be under way.
   *
   * <p>The default does nothing: right for a publisher whose sends end within the cap by
   * themselves.
   */
  default void recreateClient() {}

  /** Releases the broker client. Called once, when the outbox closes. */
  @Override
  default void close() {}
}
