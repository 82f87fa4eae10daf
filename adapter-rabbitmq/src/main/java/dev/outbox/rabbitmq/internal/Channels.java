package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
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
  private Connection connection;
  private volatile String blockedReason;
  private volatile boolean closed;

  /**
   * Channels for these options; connects on first use.
   *
   * @param options the options
   */
  Channels(RabbitMqPublisherOptions options) {
    this.options = options;
    this.factory = ConnectionFactories.create(options);
  }

  /** Why the broker blocked publishing (a memory or disk alarm), or {@code null}. */
  String blockedReason() {
    return blockedReason;
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
    opened.addBlockedListener(blockedListener());
    if (opened instanceof Recoverable recoverable) {
      recoverable.addRecoveryListener(recoveryListener());
    }
    LOG.info("Connected to RabbitMQ as {}", options);
    connection = opened;
    return opened;
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

  private BlockedListener blockedListener() {
    return new BlockedListener() {
      @Override
      public void handleBlocked(String reason) {
        LOG.warn("RabbitMQ blocks publishing: {}", reason);
        blockedReason = reason == null ? "blocked" : reason;
      }

      @Override
      public void handleUnblocked() {
        LOG.info("RabbitMQ unblocked publishing");
        blockedReason = null;
      }
    };
  }

  private RecoveryListener recoveryListener() {
    return new RecoveryListener() {
      @Override
      public void handleRecoveryStarted(Recoverable recoverable) {
        LOG.warn("Lost the RabbitMQ connection; recovering every {}", options.recoveryInterval());
      }

      @Override
      public void handleRecovery(Recoverable recoverable) {
        LOG.info("Recovered the RabbitMQ connection");
      }
    };
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
