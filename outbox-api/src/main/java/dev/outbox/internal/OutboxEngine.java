package dev.outbox.internal;

import dev.outbox.DeadLetterService;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Outbox}: a processor thread that runs {@link BatchCycle}s, a cleanup schedule, and the
 * dead-letter service. The loop never dies: every failure is logged and the loop waits for the poll
 * interval before it tries again.
 */
public final class OutboxEngine implements Outbox {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxEngine.class);

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private final OutboxOptions options;
  private final EventPublisher publisher;
  private final PublishCall publishCall;
  private final BatchCycle cycle;
  private final Cleanup cleanup;
  private final DeadLetterService deadLetters;
  private final WakeSignal wake = new WakeSignal();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final Object cycleLock = new Object();
  private Thread processor;
  private ScheduledExecutorService cleanupSchedule;

  /**
   * Creates the engine; use {@link Outbox#create} instead.
   *
   * @param options the options
   * @param store the store
   * @param publisher the publisher
   * @param clock the clock
   */
  public OutboxEngine(
      OutboxOptions options, OutboxStore store, EventPublisher publisher, Clock clock) {
    this.options = Objects.requireNonNull(options, "options");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(clock, "clock");
    this.publishCall =
        new PublishCall(
            publisher, options.publishTimeout(), "outbox-publish-" + options.instanceId());
    this.cycle = new BatchCycle(options, store, publishCall, clock);
    this.cleanup = new Cleanup(options, store, clock);
    this.deadLetters = new StoreDeadLetterService(store, clock, this::wakeUp);
  }

  @Override
  public void start() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException(
          "This outbox was closed and cannot start again; create a new one");
    }
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      return;
    }
    processor = new Thread(this::loop, "outbox-processor-" + options.instanceId());
    processor.start();
    cleanupSchedule =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "outbox-cleanup-" + options.instanceId());
              thread.setDaemon(true);
              return thread;
            });
    long interval = options.cleanupInterval().toMillis();
    cleanupSchedule.scheduleWithFixedDelay(
        this::cleanUpQuietly, interval, interval, TimeUnit.MILLISECONDS);
    LOG.info("Outbox {} started", options.instanceId());
  }

  @Override
  public int runOnce() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException("This outbox is closed");
    }
    synchronized (cycleLock) {
      return cycle.run();
    }
  }

  @Override
  public int cleanUpOnce() {
    return cleanup.run(() -> state.get() != State.CLOSED);
  }

  @Override
  public void wakeUp() {
    wake.signal();
  }

  @Override
  public boolean isRunning() {
    return state.get() == State.RUNNING;
  }

  @Override
  public DeadLetterService deadLetters() {
    return deadLetters;
  }

  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    if (previous == State.RUNNING) {
      cleanupSchedule.shutdownNow();
      wake.signal();
      awaitProcessor();
    }
    publishCall.close();
    try {
      publisher.close();
    } catch (RuntimeException e) {
      LOG.warn("Closing the publisher failed", e);
    }
    LOG.info("Outbox {} closed", options.instanceId());
  }

  private void awaitProcessor() {
    try {
      processor.join(options.shutdownTimeout().toMillis() + 1);
      if (processor.isAlive()) {
        LOG.warn(
            "The batch in flight did not finish within {}; interrupting it; its messages are"
                + " published again once their lease runs out",
            options.shutdownTimeout());
        processor.interrupt();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Claims again at once while the last cycle found work: a claim takes one message per aggregate,
   * so a short batch does not mean the backlog is empty. Otherwise waits for the poll interval or a
   * wake-up.
   */
  private void loop() {
    while (state.get() == State.RUNNING) {
      int claimed = 0;
      try {
        wake.clear();
        synchronized (cycleLock) {
          claimed = cycle.run();
        }
      } catch (RuntimeException | Error e) {
        LOG.warn("Outbox cycle failed; trying again after the poll interval", e);
      }
      if (claimed == 0 && !idle()) {
        return;
      }
    }
  }

  /** Waits for a wake-up or the poll interval; returns false when the thread is interrupted. */
  private boolean idle() {
    try {
      wake.await(options.pollInterval());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void cleanUpQuietly() {
    try {
      cleanUpOnce();
    } catch (RuntimeException e) {
      LOG.warn("Outbox cleanup failed; it runs again after the cleanup interval", e);
    }
  }

  @Override
  public String toString() {
    return "Outbox[" + options.instanceId() + ", " + state.get() + ']';
  }
}
