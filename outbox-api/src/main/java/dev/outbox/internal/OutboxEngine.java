package dev.outbox.internal;

import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Outbox}: a processor thread that runs {@link BatchCycle}s, a cleanup schedule, and the
 * dead-letter service. The loop never dies: every failure is logged and the loop waits for the poll
 * interval before it tries again. A store or a broker that does not answer is an {@link Outage}:
 * one line when it starts and one when it ends, however many attempts fail in between. From its
 * start to its close it holds an instance id no other outbox of this JVM runs under ({@link
 * RunningInstanceIds}).
 */
final class OutboxEngine implements Outbox {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxEngine.class);

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private static final Duration RECORD_GRACE = Duration.ofSeconds(5);

  private final OutboxOptions options;
  private final boolean instanceIdSet;
  private final EventPublisher publisher;
  private final PublishCall publishCall;
  private final BatchCycle cycle;
  private final Cleanup cleanup;
  private final DeadLetterService deadLetters;
  private final OutboxStore store;
  private final Listeners listeners;
  private final LastError lastError;
  private final Clock clock;
  private final LeasedQueue leased;
  private final InDoubtHeads inDoubt;
  private final Outage storeOutage;
  private final BrokerGate broker;
  private final WakeSignal wake = new WakeSignal();
  private final AtomicBoolean claimWanted = new AtomicBoolean();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

  /**
   * How long no message may get through before the broker's outage is a warning: shorter failures
   * are messages refused now and then, logged as such.
   */
  static final Duration BROKER_QUIET = Duration.ofSeconds(2);

  private final Object cycleLock = new Object();
  private final AutoCloseable wakeUps;
  private AutoCloseable leaseReceiver = () -> {};
  private Thread processor;
  private ScheduledExecutorService cleanupSchedule;
  // The options' id until start() takes the one it runs under from RunningInstanceIds.
  private volatile String instanceId;

  /**
   * Creates the engine; {@link Outbox#create} calls it through {@link Engines}.
   *
   * @param instanceIdSet whether the options' instance id was set rather than generated
   */
  OutboxEngine(
      OutboxOptions options,
      boolean instanceIdSet,
      OutboxStore store,
      EventPublisher publisher,
      Clock clock) {
    this(
        options,
        instanceIdSet,
        store,
        publisher,
        clock,
        LoggerFactory.getLogger(Outage.class),
        BROKER_QUIET);
  }

  /**
   * Creates the engine with the logger of its outage lines (the store or the broker unreachable,
   * and reachable again) and the broker's quiet time.
   */
  OutboxEngine(
      OutboxOptions options,
      boolean instanceIdSet,
      OutboxStore store,
      EventPublisher publisher,
      Clock clock,
      Logger outageLog,
      Duration brokerQuiet) {
    this.options = Objects.requireNonNull(options, "options");
    this.instanceIdSet = instanceIdSet;
    this.instanceId = options.instanceId();
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.listeners = new Listeners(options.listeners());
    this.lastError = new LastError(clock);
    this.leased = new LeasedQueue(options.publishTimeout(), clock);
    this.publishCall =
        new PublishCall(publisher, options.publishTimeout(), () -> "outbox-publish-" + instanceId);
    this.storeOutage = storeOutage(options, this::instanceId, outageLog);
    this.broker =
        new BrokerGate(
            brokerOutage(options, this::instanceId, publisher, outageLog, brokerQuiet),
            clock,
            options.brokerProbeInterval());
    this.inDoubt =
        new InDoubtHeads(options, this::instanceId, store, wake::signal, storeOutage, broker);
    this.cycle =
        new BatchCycle(
            options,
            this::instanceId,
            store,
            publishCall,
            listeners,
            lastError,
            clock,
            inDoubt,
            broker);
    this.cleanup = new Cleanup(options, store, clock);
    this.deadLetters =
        new StoreDeadLetterService(
            store,
            count -> {
              listeners.replayed(count);
              wakeUp();
            });
    this.wakeUps =
        store.commitHandOver().map(handOver -> handOver.onCommit(this::wakeUp)).orElse(() -> {});
  }

  /** The store's outage lines, saying who tries again and how often. */
  private static Outage storeOutage(OutboxOptions options, Supplier<String> id, Logger log) {
    String meanwhile =
        options.deliveryMode() == DeliveryMode.CDC
            ? "cleanup retries every " + Outage.format(options.cleanupInterval())
            : "the processor retries every " + Outage.format(options.pollInterval());
    return new Outage(
        id, "store (database) unreachable", "store (database) reachable again", meanwhile, log);
  }

  /**
   * The broker's outage lines, naming the broker when its adapter does: it does not take messages,
   * for a failure of the broker or the connection (unreachable, credentials refused, no answer),
   * never of a message.
   */
  private static Outage brokerOutage(
      OutboxOptions options,
      Supplier<String> id,
      EventPublisher publisher,
      Logger log,
      Duration quiet) {
    String system;
    try {
      system = publisher.messagingSystem();
    } catch (RuntimeException e) {
      system = null;
    }
    String broker =
        system == null || system.isBlank() || "unknown".equals(system)
            ? "broker"
            : "broker (" + system + ")";
    return new Outage(
        id,
        broker + " not accepting messages",
        broker + " accepting messages again",
        "the messages stay in the outbox and count no attempt; one is tried every "
            + Outage.format(options.brokerProbeInterval())
            + " until the broker takes it",
        log,
        quiet);
  }

  /**
   * The id this outbox runs under: the options' one, with a suffix when another outbox of this JVM
   * held it when this one started.
   */
  String instanceId() {
    return instanceId;
  }

  @Override
  public synchronized void start() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException(
          "This outbox was closed and cannot start again; create a new one");
    }
    if (state.get() != State.NEW) {
      return;
    }
    // The options' id, or with a suffix when another running outbox of this JVM holds it.
    instanceId =
        RunningInstanceIds.JVM.take(
            options.instanceId(),
            new RunningInstanceIds.Starter(
                this, store, instanceIdSet, options.deliveryMode() == DeliveryMode.POLLING));
    state.set(State.RUNNING);
    if (options.deliveryMode() == DeliveryMode.POLLING) {
      processor = new Thread(this::loop, "outbox-processor-" + instanceId);
      processor.setDaemon(true);
      processor.start();
      if (options.leaseOnWrite()) {
        leaseReceiver =
            store
                .commitHandOver()
                .map(
                    handOver ->
                        handOver.receiveLeases(
                            new CommitHandOver.LeaseReceiver(
                                instanceId, options.leaseDuration(), this::publishLeased)))
                .orElse(() -> {});
      }
    }
    cleanupSchedule =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "outbox-cleanup-" + instanceId);
              thread.setDaemon(true);
              return thread;
            });
    long interval = options.cleanupInterval().toMillis();
    cleanupSchedule.scheduleWithFixedDelay(
        this::cleanUpQuietly, interval, interval, TimeUnit.MILLISECONDS);
    if (options.deliveryMode() == DeliveryMode.CDC) {
      LOG.info(
          "Outbox {} started in CDC mode: cleanup by age only, the connector delivers", instanceId);
    } else {
      LOG.info("Outbox {} started", instanceId);
    }
  }

  @Override
  public int runOnce() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException("This outbox is closed");
    }
    if (options.deliveryMode() == DeliveryMode.CDC) {
      throw new IllegalStateException(
          "This outbox runs in CDC mode: the connector reading the database's log delivers, not"
              + " runOnce()");
    }
    synchronized (cycleLock) {
      return cycle.run();
    }
  }

  @Override
  public int cleanUpOnce() {
    int deleted = cleanup.run(() -> state.get() != State.CLOSED);
    listeners.cleanedUp(deleted);
    return deleted;
  }

  @Override
  public OutboxHealth health() {
    Instant now = clock.instant();
    LastError.Entry error = lastError.get();
    BrokerGate.Down outage = broker.down();
    long pending = -1;
    long dead = -1;
    Duration lag = Duration.ZERO;
    try {
      OutboxStats stats = store.stats();
      pending = options.deliveryMode() == DeliveryMode.CDC ? 0 : stats.pending();
      dead = stats.deadLetters();
      if (options.deliveryMode() == DeliveryMode.POLLING
          && stats.oldestPendingCreatedAt() != null
          && stats.oldestPendingCreatedAt().isBefore(now)) {
        lag = Duration.between(stats.oldestPendingCreatedAt(), now);
      }
    } catch (RuntimeException e) {
      lastError.set(e);
      error = lastError.get();
    }
    return new OutboxHealth(
        isRunning(),
        options.deliveryMode(),
        instanceId,
        pending,
        lag,
        dead,
        error == null ? null : error.error(),
        error == null ? null : error.at(),
        now,
        outage == null ? null : outage.since(),
        outage == null ? null : outage.reason(),
        options.brokerOutageTolerance());
  }

  @Override
  public void wakeUp() {
    claimWanted.set(true);
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
  public synchronized void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    try {
      unsubscribe(leaseReceiver);
      unsubscribe(wakeUps);
      if (previous == State.RUNNING) {
        cleanupSchedule.shutdownNow();
        wake.signal();
        if (processor != null) {
          awaitProcessor();
          releaseHandedOver();
        }
      }
      publishCall.close();
      inDoubt.close();
      try {
        publisher.close();
      } catch (RuntimeException e) {
        LOG.warn("Closing the publisher failed", e);
      }
    } finally {
      // Last: no thread of this outbox runs under its id any more.
      RunningInstanceIds.JVM.release(this);
    }
    LOG.info("Outbox {} closed", instanceId);
  }

  private static void unsubscribe(AutoCloseable subscription) {
    try {
      subscription.close();
    } catch (Exception e) {
      LOG.debug("Leaving the commit hand-over failed", e);
    }
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
        // Let it record the interrupted batch before the publisher closes under it.
        processor.join(RECORD_GRACE.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Runs {@link Pipeline} steps: each publishes a batch (handed over leased at commit, or claimed)
   * while the store records the previous one and, when a claim is due, claims the next. A claim is
   * due while the last claim found work, after a {@link #wakeUp()} (a commit that wrote rows that
   * go the claimed way, a replay), and after a poll interval without any wake-up. A commit whose
   * rows all went the fast path wakes the loop without a claim, so that a steady stream of such
   * commits is published without a claim round trip each. With nothing to do, waits for the poll
   * interval or a wake-up.
   */
  private void loop() {
    boolean claimDue = true;
    try (Pipeline pipeline =
        new Pipeline(options, instanceId, cycle, store, leased, clock, broker)) {
      while (state.get() == State.RUNNING) {
        int work = 0;
        long started = System.nanoTime();
        try {
          wake.clear();
          boolean wanted = claimWanted.getAndSet(false);
          synchronized (cycleLock) {
            boolean brokerWasDown = !broker.isOpen();
            Pipeline.Step step = pipeline.step(claimDue || wanted);
            work = step.work();
            claimDue = step.claimFound() != null ? step.claimFound() : claimDue || wanted;
            // The broker is back: everything held during its outage is due at once.
            claimDue |= brokerWasDown && broker.isOpen();
            if (step.storeAnswered()) {
              storeOutage.succeeded();
            }
          }
        } catch (Pipeline.StoreFailure e) {
          lastError.set(e.getCause());
          claimDue = true;
          storeOutage.failed(started, "recording and claiming", e.getCause());
        } catch (RuntimeException | Error e) {
          lastError.set(e);
          claimDue = true;
          LOG.warn("Outbox cycle failed; trying again after the poll interval", e);
        }
        if (work == 0) {
          Boolean woken = idle();
          if (woken == null) {
            return;
          }
          claimDue |= !woken;
        }
      }
    }
  }

  /**
   * Takes heads that a transaction of this JVM wrote already leased to this instance, and publishes
   * their messages from memory as soon as it committed, without a claim. Called through the store's
   * {@link CommitHandOver} after the commit. When the outbox no longer runs, the heads are left to
   * the claim, which takes them once their lease has run out.
   *
   * @param heads the committed heads leased to {@link #instanceId()}, with the messages the
   *     transaction wrote behind them
   * @param leaseUntil when their lease runs out, on this processor's clock
   */
  void publishLeased(List<LeasedHead> heads, Instant leaseUntil) {
    leased.offer(heads, leaseUntil);
    if (state.get() == State.RUNNING) {
      wake.signal();
    } else {
      releaseHandedOver(); // closed meanwhile: nobody will publish them, let others take them now
    }
  }

  /**
   * Releases heads handed over at commit that no processor will publish any more: after the
   * processor stopped, so that another instance or a restart takes them at once.
   */
  private void releaseHandedOver() {
    List<HeadOutcome> releases = leased.drain().stream().map(HeadOutcomes::released).toList();
    if (releases.isEmpty()) {
      return;
    }
    try {
      store.record(releases);
    } catch (RuntimeException e) {
      LOG.warn(
          "Releasing {} heads handed over after the processor stopped failed; they are claimed"
              + " again once their lease runs out",
          releases.size(),
          e);
    }
  }

  /**
   * Waits for a wake-up or the poll interval.
   *
   * @return whether a wake-up came; {@code null} when the thread is interrupted
   */
  private Boolean idle() {
    try {
      // No probe while a send is in doubt: its settling wakes the loop.
      return wake.await(
          cycle.hasDoubts() ? options.pollInterval() : broker.untilProbe(options.pollInterval()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Runs cleanup on its schedule; a failure is the store's, and is logged as its outage. */
  private void cleanUpQuietly() {
    long started = System.nanoTime();
    try {
      cleanUpOnce();
      storeOutage.succeeded();
    } catch (RuntimeException e) {
      lastError.set(e);
      storeOutage.failed(started, "cleaning up", e);
    }
  }

  @Override
  public String toString() {
    return "Outbox[" + instanceId + ", " + state.get() + ']';
  }
}
