package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import dev.outbox.spi.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publishing steps of one batch: prepare every message, take the thread's channel (connecting
 * if needed), send pipelined and await the confirms. Whatever goes wrong becomes per-message
 * results; nothing is thrown.
 */
public final class RabbitMqBatch implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RabbitMqBatch.class);
  private static final Duration MIN_GRACE = Duration.ofMillis(100);

  private final RabbitMqPublisherOptions options;
  private final Channels channels;

  /**
   * Batches published with these options.
   *
   * @param options the options
   */
  public RabbitMqBatch(RabbitMqPublisherOptions options) {
    this.options = options;
    this.channels = new Channels(options);
  }

  /**
   * Publishes one batch.
   *
   * @param messages the batch
   * @param timeout the time the call may take
   * @return one result per message, in order
   */
  public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
    if (messages.isEmpty()) {
      return List.of();
    }
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    List<Outgoing> batch = new ArrayList<>(messages.size());
    long maxSize = channels.maxMessageSize();
    for (OutboxMessage message : messages) {
      Outgoing outgoing =
          Outgoing.prepare(message, options.exchange(), options.routingKey(), options.appId());
      batch.add(maxSize < 0 ? outgoing : outgoing.limitedTo(maxSize, options.exchange()));
    }
    String blocked = channels.blockedReason();
    if (blocked != null) {
      return failAll(batch, "RabbitMQ blocks publishing (resource alarm): " + blocked, null);
    }
    PublisherChannel channel;
    try {
      channel = channels.forCurrentThread(Duration.ofNanos(deadline - System.nanoTime()));
    } catch (IOException | TimeoutException | RuntimeException e) {
      return unavailable(batch, e);
    }
    List<PublishResult> results = channel.publish(batch, deadline, timeout);
    channels.learnFrom(channel.closedBy());
    if (channel.inDoubt()) {
      // Kept open for the late confirms of the uncertain messages, for as long again as the call
      // had: their final outcomes come before the processor's cap of twice the publish timeout.
      channels.linger(channel, timeout.compareTo(MIN_GRACE) < 0 ? MIN_GRACE : timeout);
    }
    if (LOG.isDebugEnabled()) {
      long failed = results.stream().filter(result -> !result.isPublished()).count();
      long uncertain = results.stream().filter(PublishResult::isUncertain).count();
      LOG.debug(
          "Batch of {} to {}: {} not published, {} of them uncertain",
          results.size(),
          options.exchange(),
          failed,
          uncertain);
    }
    return results;
  }

  /**
   * Fails the batch for want of a channel, saying why: while the client recovers the connection,
   * why reconnecting fails too. A refusal (credentials, virtual host) has no cause, so that its
   * words, not the client's, are what the outbox reports as the reason of the outage.
   */
  private List<PublishResult> unavailable(List<Outgoing> batch, Exception e) {
    String reason = Faults.whyUnavailable(e, options);
    Throwable reconnect = e instanceof ShutdownSignalException ? channels.recoveryFailure() : null;
    if (reconnect != null && Faults.isRefusal(reconnect)) {
      return failAll(batch, Faults.whyUnavailable(reconnect, options) + " (" + reason + ')', null);
    }
    if (reconnect != null) {
      reason += "; reconnecting failed: " + Faults.whyUnavailable(reconnect, options);
    }
    return failAll(batch, reason, Faults.isRefusal(e) ? null : e);
  }

  /** Fails every message of a batch that cannot be sent at all: the broker's fault. */
  private List<PublishResult> failAll(List<Outgoing> batch, String reason, Throwable cause) {
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (Outgoing outgoing : batch) {
      OutboxMessage message = outgoing.message();
      PublishException failure =
          outgoing.failure() != null
              ? outgoing.failure()
              : Blame.BROKER.failure(message.id(), options.exchange(), reason, cause);
      results.add(PublishResult.failed(message.id(), failure));
    }
    LOG.debug("Batch of {} to {} failed: {}", batch.size(), options.exchange(), reason);
    return results;
  }

  @Override
  public void close() {
    channels.close();
  }
}
