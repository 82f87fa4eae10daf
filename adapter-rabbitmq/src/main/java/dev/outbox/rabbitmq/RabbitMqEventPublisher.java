package dev.outbox.rabbitmq;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.rabbitmq.internal.RabbitMqBatch;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Publishes outbox messages to a RabbitMQ exchange with publisher confirms.
 *
 * <p>Each batch goes out pipelined on the calling thread's own channel, every message {@code
 * mandatory} and persistent, and its confirms are awaited together. A message counts as published
 * only when the broker acked it and did not return it: a {@code basic.return} (no queue bound for
 * the routing key) makes it a retryable failure even though the broker acks it afterwards, so it
 * stays in the outbox until a queue is bound. {@link #publish} never throws and returns within its
 * timeout.
 *
 * <p>Each failure says whose fault it is ({@link PublishException#isBrokerFault()}). The broker's
 * (no attempt counted, every message held until the broker takes one again): the broker cannot be
 * reached, the connection is lost or closed by the broker (heartbeat timeout, {@code
 * CONNECTION_FORCED}, {@code INTERNAL_ERROR}), the credentials, the virtual host or the permission
 * on the exchange are refused (the failure names the user, never the password), the broker blocks
 * publishers (resource alarm), or no confirm comes. The message's, retryable: a return, a nack, a
 * missing exchange ({@code 404}) and a message over the broker's {@code max_message_size} ({@code
 * 406}); permanent: a message that cannot be encoded, or a routing key the user may not publish to
 * (topic authorisation, {@code 403}).
 *
 * <p>A message published but neither confirmed, nacked nor returned when the timeout runs out is
 * {@linkplain PublishResult#isUncertain() uncertain}: the broker may still store it. Its channel is
 * used for nothing else any more but kept open for as long again as the timeout; the late confirm,
 * nack or return completes the message's {@linkplain PublishResult#finalOutcome() final outcome}.
 * When the channel or connection closes first, or the grace runs out (the channel is closed then),
 * the final outcome is a retryable failure that says the broker may or may not have the message.
 *
 * <p>The connection opens on the first batch (so creating the publisher does no I/O) and is
 * recovered automatically by the client after a network failure or broker restart. On the wire:
 * {@code message-id} = outbox id, {@code type} = event type, {@code content-type}, {@code
 * timestamp} = occurred-at, {@code app-id} when set, and as AMQP headers the {@link
 * dev.outbox.spi.WireHeaders} (message id, event and aggregate type, aggregate id, occurred-at,
 * content type) plus every header of the row.
 *
 * <pre>{@code
 * EventPublisher publisher = new RabbitMqEventPublisher(RabbitMqPublisherOptions.builder()
 *     .uri("amqp://guest:guest@localhost:5672/").exchange("orders.events").build());
 * Outbox outbox = HibernateOutbox.create(emf, publisher);
 * }</pre>
 */
public final class RabbitMqEventPublisher implements EventPublisher {

  private final RabbitMqPublisherOptions options;
  private final RabbitMqBatch batches;

  /**
   * A publisher with these options. Does no I/O: the connection opens on the first batch.
   *
   * @param options where and how to publish
   */
  public RabbitMqEventPublisher(RabbitMqPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
    this.batches = new RabbitMqBatch(options);
  }

  /**
   * The options this publisher was created with.
   *
   * @return the options
   */
  public RabbitMqPublisherOptions options() {
    return options;
  }

  /** {@return {@code rabbitmq}, its name in the OpenTelemetry messaging conventions} */
  @Override
  public String messagingSystem() {
    return "rabbitmq";
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    try {
      return batches.publish(messages, timeout);
    } catch (RuntimeException e) {
      return messages.stream()
          .map(
              message ->
                  PublishResult.failed(
                      message.id(),
                      PublishException.retryable(
                          message.id(), options.exchange(), "publishing failed: " + e, e)))
          .toList();
    }
  }

  /** Closes the channels and the connection. Calling it again does nothing. */
  @Override
  public void close() {
    batches.close();
  }

  @Override
  public String toString() {
    return "RabbitMqEventPublisher[" + options + ']';
  }
}
