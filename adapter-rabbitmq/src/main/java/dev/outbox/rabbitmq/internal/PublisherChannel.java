package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One channel in confirm mode, used by one publishing thread. A batch is sent pipelined: every
 * {@code basic.publish} (mandatory, persistent) first, then the confirms are awaited together.
 * After a batch that did not end cleanly (timeout, closed channel, failed send) the channel is no
 * longer {@link #usable()}, so that late confirms or returns can never be taken for those of a
 * later batch.
 *
 * <p>When the deadline passes before every confirm is in, the unconfirmed messages are uncertain:
 * the channel keeps listening for their confirms, nacks and returns, which complete their final
 * outcomes, until it closes or {@link #giveUp} is called (see {@link Channels#linger}); both
 * complete whatever is still open as a failure saying that the broker may or may not have the
 * message (unless the broker closed the channel refusing a permission), blamed by {@link Faults}:
 * on the broker when the connection was lost or no confirm came, on the message when the broker
 * closed the channel for what was published.
 */
final class PublisherChannel implements ConfirmListener, ReturnListener, ShutdownListener {

  private final Channel channel;
  private final String exchange;
  private volatile BatchConfirms current;
  private volatile boolean broken;
  private volatile BatchConfirms inDoubt;
  private volatile ShutdownSignalException closedBy;

  private PublisherChannel(Channel channel, String exchange) {
    this.channel = channel;
    this.exchange = exchange;
  }

  /** Opens a channel in confirm mode on the connection. */
  static PublisherChannel open(Connection connection, String exchange) throws IOException {
    Channel channel = connection.createChannel();
    if (channel == null) {
      throw new IOException("RabbitMQ has no free channel on this connection (channel_max)");
    }
    PublisherChannel publisher = new PublisherChannel(channel, exchange);
    channel.addConfirmListener(publisher);
    channel.addReturnListener(publisher);
    channel.addShutdownListener(publisher);
    channel.confirmSelect();
    return publisher;
  }

  boolean usable() {
    return !broken && channel.isOpen();
  }

  /**
   * Sends the batch and waits for its confirms until the deadline.
   *
   * @param timeout the time the call was given, for the uncertain results
   * @return one result per message, in order; those unconfirmed at the deadline are uncertain
   */
  List<PublishResult> publish(List<Outgoing> batch, long deadlineNanos, Duration timeout) {
    List<OutboxMessage> messages = new ArrayList<>(batch.size());
    batch.forEach(outgoing -> messages.add(outgoing.message()));
    BatchConfirms confirms = new BatchConfirms(messages, exchange);
    current = confirms;
    try {
      sendAll(batch, confirms);
      if (!confirms.await(deadlineNanos)) {
        // Published, not yet confirmed: they may still be stored. The channel is used for nothing
        // else any more; it keeps listening, and what it hears completes their final outcomes.
        broken = true;
        List<PublishResult> results = confirms.timedOut(timeout);
        inDoubt = confirms;
        return results;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      broken = true;
      confirms.abort(
          Blame.MESSAGE_RETRYABLE, true, "interrupted while waiting for publisher confirms", e);
    } finally {
      if (inDoubt != confirms) {
        current = null;
      }
    }
    return confirms.results();
  }

  /** Whether messages of the last batch are uncertain and still wait for their final outcome. */
  boolean inDoubt() {
    BatchConfirms confirms = inDoubt;
    return confirms != null && confirms.inDoubt();
  }

  /**
   * Completes when no message of the last batch waits for its final outcome any more: at once
   * unless that batch timed out with messages unconfirmed.
   */
  CompletionStage<Void> settled() {
    BatchConfirms confirms = inDoubt;
    return confirms == null ? CompletableFuture.completedFuture(null) : confirms.settled();
  }

  /**
   * Stops waiting for the confirms of the uncertain messages: their final outcomes become broker
   * faults (no confirm came, or the publisher closes) that say the broker may or may not have them.
   * Then the channel should be {@linkplain #abort() closed}.
   *
   * @param reason why
   */
  void giveUp(String reason) {
    broken = true;
    BatchConfirms confirms = current;
    if (confirms != null) {
      confirms.abort(Blame.BROKER, true, reason, null);
    }
  }

  private void sendAll(List<Outgoing> batch, BatchConfirms confirms) {
    for (int i = 0; i < batch.size(); i++) {
      Outgoing outgoing = batch.get(i);
      if (outgoing.failure() != null) {
        confirms.fail(i, outgoing.failure());
        continue;
      }
      if (broken) {
        // the channel closed: the rest is reported as not sent, blamed as the close is
        ShutdownSignalException cause = closedBy;
        confirms.abort(Faults.ofClose(cause), true, ShutdownReasons.describe(cause), cause);
        return;
      }
      try {
        confirms.expect(channel.getNextPublishSeqNo(), i);
        channel.basicPublish(
            exchange, outgoing.routingKey(), true, outgoing.properties(), outgoing.body());
      } catch (IOException | RuntimeException e) {
        broken = true;
        Blame blame = Faults.ofSend(e);
        confirms.fail(
            i,
            blame.failure(
                outgoing.message().id(), exchange, "sending to RabbitMQ failed: " + e, e));
        confirms.abort(blame, true, "the channel failed while the batch was sent: " + e, e);
        return;
      }
    }
  }

  @Override
  public void handleAck(long deliveryTag, boolean multiple) {
    BatchConfirms confirms = current;
    if (confirms != null) {
      confirms.confirmed(deliveryTag, multiple, true);
    }
  }

  @Override
  public void handleNack(long deliveryTag, boolean multiple) {
    BatchConfirms confirms = current;
    if (confirms != null) {
      confirms.confirmed(deliveryTag, multiple, false);
    }
  }

  @Override
  public void handleReturn(
      int replyCode,
      String replyText,
      String exchange,
      String routingKey,
      AMQP.BasicProperties properties,
      byte[] body) {
    BatchConfirms confirms = current;
    if (confirms != null) {
      confirms.returned(properties.getMessageId(), replyCode, replyText, routingKey);
    }
  }

  @Override
  public void shutdownCompleted(ShutdownSignalException cause) {
    closedBy = cause;
    broken = true;
    BatchConfirms confirms = current;
    if (confirms != null) {
      confirms.abort(
          Faults.ofClose(cause),
          !Faults.refusedBeforeStoring(cause),
          "the connection or channel to RabbitMQ closed before the broker confirmed: "
              + ShutdownReasons.describe(cause),
          cause);
    }
  }

  /** Why the channel closed, or {@code null} while it is open (or closed by the publisher). */
  ShutdownSignalException closedBy() {
    return closedBy;
  }

  /**
   * Closes the channel, ignoring errors; an already closed channel is just released. The client
   * waits up to 10 s for the broker's close-ok, so this runs on a closer thread. What is still
   * unconfirmed fails, retryably, before the channel closes, since a closing channel drops the
   * confirms that still come in.
   */
  void abort() {
    giveUp("the publisher closed the channel before the broker confirmed the message");
    try {
      channel.abort();
    } catch (IOException | RuntimeException e) {
      // closing a broken channel: nothing to do about it
    }
  }
}
