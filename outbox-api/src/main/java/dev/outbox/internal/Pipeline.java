package dev.outbox.internal;

import dev.outbox.OutboxOptions;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processor's loop body: while one batch is being published, the store records the outcomes of
 * the batch before it and claims the next one, in one transaction. Each batch costs one commit, and
 * the broker and the database work at the same time.
 *
 * <p>Order per aggregate holds because a batch's heads stay leased until their outcomes are
 * recorded: the claim that runs while it is published skips them, and the record moves each head's
 * cursor before anyone reads behind it. A head with more messages behind its cursor stays leased
 * and its next messages come back from the record itself, with no claim.
 *
 * <p>A batch claimed ahead waits for the batch in flight, at most one publish timeout, so claims
 * run ahead only when the lease covers two publish timeouts; a batch whose lease became too short
 * to publish is released instead.
 */
final class Pipeline implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);

  /**
   * What one step did.
   *
   * @param work messages published, recorded or claimed; zero when there was nothing to do
   * @param claimFound whether the claim found messages; {@code null} when no claim ran
   * @param storeAnswered whether a transaction of the store ran and committed
   */
  record Step(int work, Boolean claimFound, boolean storeAnswered) {}

  /**
   * A step failed because its store transaction failed: {@link #getCause()} is what the store
   * threw. Tells the processor's loop a store that does not answer from any other failure.
   */
  static final class StoreFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    StoreFailure(RuntimeException cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  /**
   * What the store did in one transaction: the heads it continued or claimed. Either counts as work
   * found: while the heads it records keep it busy, the processor keeps claiming too.
   */
  private record Stored(
      List<LeasedHead> claimed, Instant leaseUntil, Instant latestLeaseUntil, Duration took) {
    static final Stored NOTHING = new Stored(List.of(), null, null, Duration.ZERO);
  }

  private final BatchCycle cycle;
  private final OutboxStore store;
  private final Clock clock;
  private final Duration shutdownTimeout;
  private final String instanceId;
  private final LeasedQueue leased;
  private final BrokerGate broker;
  private final int batchSize;
  private final boolean claimAhead;
  private final ExecutorService storeWorker;
  private final Deque<BatchCycle.Claimed> ready = new ArrayDeque<>();
  private final List<BatchCycle.Decided> unrecorded = new ArrayList<>();
  private final List<Unrecorded> failedOnce = new ArrayList<>();
  private final List<HeadOutcome> releases = new ArrayList<>();
  private boolean followUp;
  private boolean storeAnswered;

  /**
   * Outcomes of a batch whose record failed, kept until the store records them: a record is fenced
   * by its lease's token, so recording it late is never wrong, and dropping it would publish its
   * messages again.
   *
   * @param decided the batch
   * @param left its head outcomes not recorded yet
   */
  private record Unrecorded(BatchCycle.Decided decided, List<HeadOutcome> left, int refusals) {
    Unrecorded(BatchCycle.Decided decided) {
      this(decided, List.copyOf(decided.heads()), 0);
    }
  }

  /**
   * How many rounds an outcome may fail while the store records others before it is dropped: a
   * pool's stale connections fail once each after a database restart, a value the database refuses
   * fails every time.
   */
  private static final int MAX_REFUSALS = 3;

  /**
   * Creates the pipeline and its store worker.
   *
   * @param instanceId the id the outbox runs under, in the worker's name
   * @param broker whether to send: while the broker is unavailable, only a probe is sent
   */
  Pipeline(
      OutboxOptions options,
      String instanceId,
      BatchCycle cycle,
      OutboxStore store,
      LeasedQueue leased,
      Clock clock,
      BrokerGate broker) {
    this.cycle = cycle;
    this.broker = broker;
    this.store = store;
    this.clock = clock;
    this.shutdownTimeout = options.shutdownTimeout();
    this.instanceId = instanceId;
    this.leased = leased;
    this.batchSize = options.batchSize();
    this.claimAhead =
        options.leaseDuration().compareTo(options.publishTimeout().multipliedBy(2)) >= 0;
    this.storeWorker =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "outbox-store-" + instanceId);
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Publishes the next batch, if there is one, while the store records what was published before
   * and, when a claim is due and nothing else waits, claims the batch after. Without claims ahead,
   * records and claims after the publish instead.
   *
   * @param claimDue whether to claim
   * @return what it did
   */
  Step step(boolean claimDue) {
    int retried = recordFailedOnce();
    if (!broker.isOpen()) {
      return stepWhileBrokerDown(retried);
    }
    BatchCycle.Claimed sending = withMemory(ready.poll());
    boolean claim = (claimDue || followUp) && ready.isEmpty();
    if (claim) {
      followUp = false;
    }
    List<BatchCycle.Decided> toRecord = takeToRecord();
    List<HeadOutcome> released = takeReleases();
    Stored stored;
    try {
      if (sending == null) {
        stored = store(toRecord, released, claim);
      } else if (claimAhead) {
        Future<Stored> storing =
            toRecord.isEmpty() && released.isEmpty() && !claim
                ? null
                : storeWorker.submit(() -> store(toRecord, released, claim));
        unrecorded.add(cycle.publish(sending));
        stored = storing == null ? Stored.NOTHING : await(storing);
        // The claim could not take what waits behind the batch in flight: look again once that
        // batch is recorded, with the next step's record.
        followUp = claim && stored.claimed().isEmpty();
      } else {
        toRecord.add(cycle.publish(sending));
        stored = store(toRecord, released, claim);
      }
    } catch (RuntimeException | Error e) {
      keepUnrecorded(toRecord, released);
      throw e;
    }
    storeAnswered |= stored != Stored.NOTHING;
    toRecord.forEach(decided -> cycle.recorded(decided, stored.took()));
    if (!stored.claimed().isEmpty()) {
      ready.add(
          new BatchCycle.Claimed(
              stored.claimed(), stored.leaseUntil(), stored.latestLeaseUntil(), stored.took()));
    }
    int work =
        retried
            + count(toRecord)
            + (sending == null ? 0 : sending.heads().size())
            + stored.claimed().size();
    return new Step(
        work, claim ? !stored.claimed().isEmpty() : null, retried > 0 || stored != Stored.NOTHING);
  }

  /**
   * A step while the broker is unavailable: gives back every head held for sending (the claim takes
   * them again once the broker is back), records what is to be recorded, and once per probe
   * interval claims one message and sends it, to learn whether the broker takes messages again.
   */
  private Step stepWhileBrokerDown(int retried) {
    ready.forEach(claimed -> releases.addAll(BatchCycle.release(claimed)));
    ready.clear();
    followUp = false;
    leased.drain().forEach(head -> releases.add(HeadOutcomes.released(head)));
    boolean probe = !cycle.hasDoubts() && broker.takeProbe();
    List<BatchCycle.Decided> toRecord = takeToRecord();
    List<HeadOutcome> released = takeReleases();
    Stored stored;
    try {
      stored = probe ? store(toRecord, released, true, 1) : recordOnly(toRecord, released);
    } catch (RuntimeException | Error e) {
      keepUnrecorded(toRecord, released);
      throw e;
    }
    storeAnswered |= stored != Stored.NOTHING;
    toRecord.forEach(decided -> cycle.recorded(decided, stored.took()));
    if (probe && stored.claimed().isEmpty() && !cycle.hasDoubts()) {
      broker.nothingToTry();
    }
    if (!stored.claimed().isEmpty()) {
      unrecorded.add(
          cycle.publish(
              new BatchCycle.Claimed(
                  stored.claimed(),
                  stored.leaseUntil(),
                  stored.latestLeaseUntil(),
                  stored.took())));
    }
    int work = retried + count(toRecord) + released.size() + stored.claimed().size();
    return new Step(
        work, probe ? !stored.claimed().isEmpty() : null, stored != Stored.NOTHING || retried > 0);
  }

  /** The batches published and settled since the last step, to be recorded by this one. */
  private List<BatchCycle.Decided> takeToRecord() {
    List<BatchCycle.Decided> toRecord = new ArrayList<>(unrecorded);
    unrecorded.clear();
    toRecord.addAll(cycle.settled());
    return toRecord;
  }

  /** The heads given back unsent since the last step, to be released by this one. */
  private List<HeadOutcome> takeReleases() {
    List<HeadOutcome> released = new ArrayList<>(releases);
    releases.clear();
    return released;
  }

  /** What one store transaction records: the releases, then every head of each batch. */
  private static List<HeadOutcome> outcomesOf(
      List<BatchCycle.Decided> toRecord, List<HeadOutcome> released) {
    List<HeadOutcome> outcomes = new ArrayList<>(released);
    toRecord.forEach(decided -> outcomes.addAll(decided.heads()));
    return outcomes;
  }

  /** Records outcomes and releases without continuing any head: nothing is sent meanwhile. */
  private Stored recordOnly(List<BatchCycle.Decided> toRecord, List<HeadOutcome> released) {
    List<HeadOutcome> outcomes = outcomesOf(toRecord, released);
    if (outcomes.isEmpty()) {
      return Stored.NOTHING;
    }
    long start = System.nanoTime();
    try {
      store.record(outcomes);
    } catch (RuntimeException e) {
      throw new StoreFailure(e);
    }
    return new Stored(List.of(), null, null, Duration.ofNanos(System.nanoTime() - start));
  }

  /** Keeps what a failed store transaction did not record, for the next steps. */
  private void keepUnrecorded(List<BatchCycle.Decided> toRecord, List<HeadOutcome> released) {
    storeAnswered = false;
    toRecord.forEach(decided -> failedOnce.add(new Unrecorded(decided)));
    releases.addAll(released); // the leases still hold; retried on their own next step
  }

  /**
   * The batch to send: a claimed one (if any) together with what commits handed over, so that
   * neither waits behind the other. They never share an aggregate: a head is leased to one holder
   * at a time, and a head written leased is claimed by nobody until it is recorded.
   */
  private BatchCycle.Claimed withMemory(BatchCycle.Claimed claimed) {
    LeasedQueue.Batch batch = leased.poll(batchSize);
    batch.release().forEach(head -> releases.add(HeadOutcomes.released(head)));
    if (batch.heads().isEmpty()) {
      return claimed;
    }
    BatchCycle.Claimed fromMemory =
        new BatchCycle.Claimed(
            batch.heads(), batch.leaseUntil(), batch.latestLeaseUntil(), Duration.ZERO);
    return claimed == null ? fromMemory : claimed.with(fromMemory);
  }

  /**
   * Records outcomes whose record failed, now apart from any claim and without continuing any head;
   * when that fails too, one head at a time. While the store does not answer they are kept, however
   * long that lasts: each record is fenced by its lease's token, so a late one is applied only
   * while the lease is still this processor's, and dropping it would publish its messages again. An
   * outcome that fails while the store answers other transactions is refused for good and dropped
   * (its messages are published again once their lease runs out), so that it cannot stop every
   * record after it.
   *
   * @return how many outcomes were recorded
   */
  private int recordFailedOnce() {
    if (failedOnce.isEmpty()) {
      return 0;
    }
    boolean answeredSince = storeAnswered;
    storeAnswered = false;
    List<Unrecorded> retry = List.copyOf(failedOnce);
    failedOnce.clear();
    try {
      long start = System.nanoTime();
      List<HeadOutcome> outcomes = new ArrayList<>();
      retry.forEach(kept -> outcomes.addAll(kept.left()));
      store.record(outcomes);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      retry.forEach(kept -> cycle.recorded(kept.decided(), took));
      storeAnswered = true;
      return outcomes.size();
    } catch (RuntimeException e) {
      LOG.debug("Recording {} kept outcomes failed; recording them one by one", retry.size(), e);
    }
    return recordOneByOne(retry, answeredSince);
  }

  /**
   * Records kept outcomes one head at a time. While nothing is known to have reached the store, the
   * first failure ends the round and the rest wait untried, first failure last, so that one outcome
   * the store refuses cannot hide behind an unreachable store forever.
   */
  private int recordOneByOne(List<Unrecorded> retry, boolean answeredSince) {
    int recorded = 0;
    int dropped = 0;
    RuntimeException refused = null;
    boolean storeUp = answeredSince;
    boolean stopped = false;
    List<Unrecorded> keep = new ArrayList<>();
    List<Unrecorded> failedFirst = new ArrayList<>();
    for (Unrecorded kept : retry) {
      List<HeadOutcome> left = new ArrayList<>();
      boolean failedHere = false;
      boolean refusedHere = false;
      for (HeadOutcome outcome : kept.left()) {
        if (stopped) {
          left.add(outcome);
          continue;
        }
        try {
          store.record(List.of(outcome));
          recorded++;
          storeUp = true;
        } catch (RuntimeException e) {
          refused = e;
          failedHere = true;
          if (!storeUp) {
            left.add(outcome);
            stopped = true;
          } else if (kept.refusals() + 1 >= MAX_REFUSALS) {
            dropped++;
          } else {
            left.add(outcome);
            refusedHere = true;
          }
        }
      }
      if (!left.isEmpty()) {
        int refusals = kept.refusals() + (refusedHere ? 1 : 0);
        (failedHere ? failedFirst : keep).add(new Unrecorded(kept.decided(), left, refusals));
      }
    }
    failedOnce.addAll(keep);
    failedOnce.addAll(failedFirst);
    storeAnswered |= recorded > 0;
    if (dropped > 0) {
      LOG.warn(
          "Dropped {} head outcomes the store refused "
              + MAX_REFUSALS
              + " times while it answered; their messages are published again once their lease"
              + " runs out",
          dropped,
          refused);
    } else if (refused != null) {
      LOG.debug(
          "Keeping head outcomes of {} batches until the store records them",
          keep.size() + failedFirst.size());
    }
    return recorded;
  }

  private static int count(List<BatchCycle.Decided> decided) {
    return decided.stream().mapToInt(d -> d.heads().size()).sum();
  }

  /**
   * One transaction: records the outcomes and reads on behind the heads they keep, then claims new
   * heads when asked.
   */
  private Stored store(
      List<BatchCycle.Decided> toRecord, List<HeadOutcome> released, boolean claim) {
    return store(toRecord, released, claim, batchSize);
  }

  private Stored store(
      List<BatchCycle.Decided> toRecord, List<HeadOutcome> released, boolean claim, int limit) {
    long start = System.nanoTime();
    List<HeadOutcome> outcomes = outcomesOf(toRecord, released);
    if (outcomes.isEmpty() && !claim) {
      return Stored.NOTHING;
    }
    ClaimRequest request = cycle.claimRequest(claim, limit);
    // Claimed heads get the whole lease, continued ones at least its kept part: a publish counts on
    // the less, a head given up after an abandoned call waits for the more.
    Instant now = clock.instant();
    List<LeasedHead> claimed;
    try {
      claimed = store.recordAndClaim(outcomes, request);
    } catch (RuntimeException e) {
      throw new StoreFailure(e);
    }
    return new Stored(
        claimed,
        now.plus(request.keptLease()),
        now.plus(request.lease()),
        Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Waits for the store even when interrupted: its transaction is short, and what it claimed must
   * be known to be released.
   */
  private static Stored await(Future<Stored> storing) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return storing.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Records what was published and releases every head still held (claimed, continued or handed
   * over at commit but not published), so that another processor or a restart goes on at once. Then
   * stops the store's worker.
   */
  @Override
  public void close() {
    int inDoubt = cycle.awaitDoubts(shutdownTimeout);
    if (inDoubt > 0) {
      LOG.warn(
          "{} heads still wait for the final outcome of a send; they stay leased until their lease"
              + " runs out",
          inDoubt);
    }
    unrecorded.addAll(cycle.settled());
    List<HeadOutcome> outcomes = new ArrayList<>(releases);
    releases.clear();
    failedOnce.forEach(kept -> outcomes.addAll(kept.left()));
    failedOnce.clear();
    unrecorded.forEach(decided -> outcomes.addAll(decided.heads()));
    ready.forEach(claimed -> outcomes.addAll(BatchCycle.release(claimed)));
    leased.drain().forEach(head -> outcomes.add(HeadOutcomes.released(head)));
    // close() may have interrupted a publish; a pool would refuse the connection to record it.
    boolean interrupted = Thread.interrupted();
    try {
      if (!outcomes.isEmpty()) {
        long start = System.nanoTime();
        store.record(outcomes);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        unrecorded.forEach(decided -> cycle.recorded(decided, took));
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "Recording {} outcomes at shutdown failed; their messages are published again once"
              + " their lease runs out",
          outcomes.size(),
          e);
    } finally {
      unrecorded.clear();
      ready.clear();
      storeWorker.shutdownNow();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
