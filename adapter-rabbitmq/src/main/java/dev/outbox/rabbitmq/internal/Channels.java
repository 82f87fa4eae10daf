package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection of a publisher (opened on first use, recovered automatically by the client
 * after a network failure or a broker restart) and one confirm-mode channel per publishing thread.
 * Channels that ended a batch badly are closed in the background and replaced on next use. A
 * channel whose batch timed out with messages unconfirmed {@linkplain #linger lingers}: it is
 * replaced at once but kept open for their late confirms, and closed once they are all in or after
 * a grace period, whichever comes first, so that every final outcome completes.
 */
final class Channels implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Channels.class);

  private final RabbitMqPublisherOptions options;
  private final ConnectionFactory factory;
  private final Map<Thread, PublisherChannel> byThread = new ConcurrentHashMap<>();
  private final Set<PublisherChannel> lingering = ConcurrentHashMap.newKeySet();
  // Closing a channel on a stalled connection waits up to 10 s for the broker: one thread each.
  private final ExecutorService closer =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "outbox-rabbitmq-closer");
            thread.setDaemon(true);
            return thread;
          });
  private final ScheduledThreadPoolExecutor timer = timer();
  private final ConnectionWatch watch;
  private final AtomicLong maxMessageSize = new AtomicLong(-1);
  private Connection connection;
  private volatile boolean closed;

  /**
   * Channels for these options; connects on first use.
   *
   * @param options the options
   */
  Channels(RabbitMqPublisherOptions options) {
    this.options = options;
    this.watch = new ConnectionWatch(options, this::redeclareTopology);
    this.factory = ConnectionFactories.create(options, watch);
  }

  /** Why the broker blocked publishing (a memory or disk alarm), or {@code null}. */
  String blockedReason() {
    return watch.blockedReason();
  }

  /**
   * Why the client's last attempt to recover the lost connection failed, or {@code null} when it is
   * not recovering or has not tried yet.
   */
  Throwable recoveryFailure() {
    return watch.recoveryFailure();
  }

  /**
   * The broker's {@code max_message_size}, once it closed a channel for a message larger.
   *
   * @return the limit in bytes, or {@code -1} while unknown
   */
  long maxMessageSize() {
    return maxMessageSize.get();
  }

  /**
   * Learns from why a channel closed: the broker's {@code max_message_size} when it closed the
   * channel for a message larger, so that such messages fail before they are sent.
   *
   * @param cause why a channel closed, or {@code null}
   */
  void learnFrom(ShutdownSignalException cause) {
    long limit = Faults.maxMessageSize(cause);
    if (limit >= 0 && maxMessageSize.getAndSet(limit) != limit) {
      LOG.info("RabbitMQ refuses messages over {} bytes (max_message_size)", limit);
    }
  }

  /**
   * The calling thread's channel, opening the connection or the channel when needed.
   *
   * @param remaining how long connecting may take at most
   */
  PublisherChannel forCurrentThread(Duration remaining) throws IOException, TimeoutException {
    if (closed) {
      throw new IOException("the RabbitMQ publisher is closed");
    }
    Thread thread = Thread.currentThread();
    PublisherChannel channel = byThread.get(thread);
    if (channel != null && channel.usable()) {
      return channel;
    }
    if (channel != null) {
      byThread.remove(thread);
      retire(channel);
    }
    byThread.keySet().removeIf(owner -> !owner.isAlive() && retire(byThread.get(owner)));
    channel = PublisherChannel.open(connection(remaining), options.exchange());
    byThread.put(thread, channel);
    return channel;
  }

  private synchronized Connection connection(Duration remaining)
      throws IOException, TimeoutException {
    if (closed) {
      throw new IOException("the RabbitMQ publisher is closed");
    }
    if (connection != null) {
      return connection; // open, or being recovered by the client
    }
    int timeout =
        (int) Math.max(1, Math.min(options.connectionTimeout().toMillis(), remaining.toMillis()));
    factory.setConnectionTimeout(timeout);
    factory.setHandshakeTimeout(timeout);
    Connection opened = factory.newConnection(options.connectionName());
    try {
      declareTopology(opened);
    } catch (IOException | RuntimeException e) {
      opened.abort();
      throw e;
    }
    opened.addBlockedListener(watch);
    if (opened instanceof Recoverable recoverable) {
      recoverable.addRecoveryListener(watch);
    }
    LOG.info("Connected to RabbitMQ as {}", options);
    connection = opened;
    return opened;
  }

  /**
   * Declares the exchange again on a recovered connection: the client's own topology recovery is
   * off, since it would redeclare on the closed channel the exchange was declared on.
   */
  private void redeclareTopology(Connection recovered) {
    try {
      declareTopology(recovered);
    } catch (IOException | TimeoutException | RuntimeException e) {
      LOG.warn(
          "Could not declare exchange '{}' again after recovering the connection: {}",
          options.exchange(),
          e.toString());
    }
  }

  private void declareTopology(Connection opened) throws IOException, TimeoutException {
    if (!options.declareExchange() || options.exchange().isEmpty()) {
      return;
    }
    try (Channel channel = opened.createChannel()) {
      channel.exchangeDeclare(
          options.exchange(), options.exchangeType(), options.exchangeDurable());
    }
  }

  /**
   * Takes a channel whose batch left messages uncertain out of use, and keeps it open for their
   * late confirms: until they are all in, or for {@code grace} at most, after which what is still
   * unconfirmed fails retryably (the broker may or may not have it) and the channel is closed.
   *
   * @param channel the calling thread's channel, just back from its batch
   * @param grace how long to wait for the late confirms
   */
  void linger(PublisherChannel channel, Duration grace) {
    byThread.remove(Thread.currentThread(), channel);
    lingering.add(channel);
    String reason =
        "no publisher confirm within "
            + grace
            + " after the publish timeout; the publisher closed the channel";
    ScheduledFuture<?> giveUp;
    try {
      giveUp =
          timer.schedule(
              () -> release(channel, reason), Math.max(1, grace.toNanos()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      release(channel, "the RabbitMQ publisher is closed");
      return;
    }
    channel
        .settled()
        .whenComplete(
            (done, failure) -> {
              giveUp.cancel(false);
              release(channel, null);
            });
    if (closed) {
      release(channel, "the RabbitMQ publisher is closed");
    }
  }

  /** Closes a lingering channel, failing first what it still waits for when there is a reason. */
  private void release(PublisherChannel channel, String reason) {
    if (!lingering.remove(channel)) {
      return; // released already
    }
    if (reason != null) {
      channel.giveUp(reason); // here, not on the closer: the final outcomes complete now
    }
    retire(channel);
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "outbox-rabbitmq-confirms");
              thread.setDaemon(true);
              return thread;
            });
    timer.setRemoveOnCancelPolicy(true);
    timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return timer;
  }

  private boolean retire(PublisherChannel channel) {
    if (channel != null) {
      try {
        closer.execute(channel::abort);
      } catch (RejectedExecutionException e) {
        channel.giveUp("the RabbitMQ publisher is closed");
      }
    }
    return true;
  }

  @Override
  public void close() {
    Connection open;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      open = connection;
      connection = null;
    }
    byThread.values().forEach(this::retire);
    byThread.clear();
    timer.shutdownNow();
    List.copyOf(lingering).forEach(channel -> release(channel, "the RabbitMQ publisher closed"));
    closer.shutdown();
    if (open != null) {
      open.abort((int) options.connectionTimeout().toMillis());
    }
  }
}
