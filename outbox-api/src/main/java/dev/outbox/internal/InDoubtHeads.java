package dev.outbox.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Heads whose batch left messages uncertain (the publish timeout ran out while the broker client
 * still held the send). They stay leased to this processor, their leases renewed on the store's
 * clock on a thread of their own, and nothing of them is sent again, until every uncertain message
 * has its final outcome; then their outcomes go to the processor to be recorded. A hard cap of
 * twice the publish timeout ends the wait: the call still running is interrupted, the publisher's
 * client is recreated ({@link dev.outbox.spi.EventPublisher#recreateClient()}, once per batch), and
 * the messages fail.
 */
final class InDoubtHeads implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InDoubtHeads.class);

  /**
   * A head waiting for final outcomes.
   *
   * @param head the head and the messages of its batch
   * @param results every result of the batch for the head's messages, uncertain ones included
   * @param atHardCap what to do at the cap: interrupt the call still sending, recreate the client
   */
  record Doubt(LeasedHead head, Map<UUID, PublishResult> results, Runnable atHardCap) {}

  /**
   * A head whose doubt is over.
   *
   * @param head the head
   * @param results a final result for every message that was sent
   * @param capped whether the hard cap ended the wait
   */
  record Settled(LeasedHead head, Map<UUID, PublishResult> results, boolean capped) {}

  private final Supplier<String> instanceId;
  private final OutboxStore store;
  private final Duration lease;
  private final Duration cap;
  private final Runnable onSettled;
  private final Outage storeOutage;
  private final BrokerGate broker;
  private final ConcurrentLinkedQueue<Settled> settled = new ConcurrentLinkedQueue<>();
  private final Map<Lease, Doubt> open = new ConcurrentHashMap<>();
  private final Set<Lease> lost = ConcurrentHashMap.newKeySet();
  private ScheduledExecutorService timer;

  /**
   * Creates the registry.
   *
   * @param instanceId the id the outbox runs under, the holder of the leases it renews
   * @param onSettled told (on any thread) when a head's doubt is over: take it with {@link
   *     #takeSettled()}
   * @param storeOutage told whether renewing leases reached the store
   * @param broker whether the broker answers: a head given up at the cap while it does not is part
   *     of its outage
   */
  InDoubtHeads(
      OutboxOptions options,
      Supplier<String> instanceId,
      OutboxStore store,
      Runnable onSettled,
      Outage storeOutage,
      BrokerGate broker) {
    this.instanceId = instanceId;
    this.store = store;
    this.lease = options.leaseDuration();
    this.cap = options.publishTimeout().multipliedBy(2);
    this.onSettled = onSettled;
    this.storeOutage = storeOutage;
    this.broker = broker;
  }

  /** The thread that renews leases and ends doubts at the cap, started with the first doubt. */
  private synchronized ScheduledExecutorService timer() {
    if (timer == null) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              task -> {
                Thread thread = new Thread(task, "outbox-leases-" + instanceId.get());
                thread.setDaemon(true);
                return thread;
              });
      long every = Math.max(100, lease.toMillis() / 3);
      timer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
    }
    return timer;
  }

  /** Holds a head until the final outcomes of its uncertain messages are known. */
  void hold(Doubt doubt) {
    Lease key = doubt.head().lease();
    open.put(key, doubt);
    List<CompletableFuture<PublishResult>> finals = new ArrayList<>();
    doubt
        .results()
        .values()
        .forEach(
            result -> {
              if (result.isUncertain()) {
                finals.add(result.finalOutcome().toCompletableFuture());
              }
            });
    timer().schedule(() -> settle(key, true), cap.toMillis(), TimeUnit.MILLISECONDS);
    CompletableFuture.allOf(finals.toArray(CompletableFuture[]::new))
        .whenComplete((done, failure) -> settle(key, false));
  }

  /** How many heads wait. */
  int size() {
    return open.size();
  }

  /**
   * Waits until no head is in doubt any more, at most {@code timeout}.
   *
   * @return whether none is left
   */
  boolean awaitNone(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!open.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return open.isEmpty();
      }
    }
    return open.isEmpty();
  }

  private void settle(Lease key, boolean capped) {
    Doubt doubt = open.remove(key);
    if (doubt == null) {
      return; // settled already
    }
    if (capped) {
      // Not on this thread: it renews the leases of every head in doubt, and recreating a
      // client may wait for the client's own I/O.
      Thread atCap = new Thread(doubt.atHardCap(), "outbox-hard-cap");
      atCap.setDaemon(true);
      atCap.start();
      // While the broker is unreachable, every head of every batch would say so: its outage line
      // does, once.
      LOG.atLevel(broker.isOpen() ? Level.ERROR : Level.DEBUG)
          .log(
              "No final outcome for messages of {} within the hard cap of {}; the broker client"
                  + " was recreated, and they fail and are sent again after a lease",
              key,
              cap);
    }
    Map<UUID, PublishResult> finals = new HashMap<>();
    doubt.results().forEach((id, result) -> finals.put(id, finalOf(result, capped)));
    lost.remove(key);
    settled.add(new Settled(doubt.head(), finals, capped));
    onSettled.run();
  }

  /**
   * Takes the heads whose doubt is over, to be decided and recorded.
   *
   * @return the settled heads, oldest first
   */
  List<Settled> takeSettled() {
    List<Settled> taken = new ArrayList<>();
    for (Settled next = settled.poll(); next != null; next = settled.poll()) {
      taken.add(next);
    }
    return taken;
  }

  private PublishResult finalOf(PublishResult result, boolean capped) {
    if (!result.isUncertain()) {
      return result;
    }
    CompletableFuture<PublishResult> outcome = result.finalOutcome().toCompletableFuture();
    if (outcome.isDone() && !outcome.isCompletedExceptionally()) {
      PublishResult done = outcome.join();
      return done.isUncertain() ? failed(result, "the final outcome was uncertain again") : done;
    }
    return failed(
        result,
        capped
            ? "no final outcome within the hard cap of " + cap
            : "the final outcome failed: " + outcome.handle((r, e) -> e).join());
  }

  /**
   * A send that got no final answer: the broker client's or the connection's failure, never the
   * message's, so it counts no attempt.
   */
  private static PublishResult failed(PublishResult result, String why) {
    return PublishResult.failed(
        result.messageId(),
        PublishException.brokerUnavailable(result.messageId(), result.destination(), why, null));
  }

  /**
   * Extends the leases of the heads in doubt; one that is lost is logged once. A failure is the
   * store's, logged as its outage; the next renewal tries again.
   */
  private void renew() {
    if (open.isEmpty()) {
      return;
    }
    long started = System.nanoTime();
    try {
      Set<Lease> leases = new HashSet<>(open.keySet());
      List<Lease> lostNow = store.renew(instanceId.get(), leases, lease);
      storeOutage.succeeded();
      for (Lease gone : lostNow) {
        if (lost.add(gone)) {
          LOG.warn(
              "Lost the lease of {} while its send was uncertain: another processor may send its"
                  + " messages again (duplicates, never a reorder for consumers that de-duplicate)",
              gone);
        }
      }
    } catch (RuntimeException e) {
      storeOutage.failed(started, "renewing the leases of " + open.size() + " heads in doubt", e);
    }
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
