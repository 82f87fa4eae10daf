package dev.outbox.internal;

import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.PublishResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The steps of one batch: claim it, publish it in rounds, decide each message's outcome, and tell
 * the listeners once the outcomes are recorded. {@link #run()} does them all in series; the
 * processor's {@link Pipeline} overlaps them across batches.
 */
final class BatchCycle {

  private static final Logger LOG = LoggerFactory.getLogger(BatchCycle.class);

  /**
   * A batch of heads this instance holds, waiting to be published.
   *
   * @param heads the heads and their messages, in seq order per head
   * @param leaseUntil when the earliest of their leases runs out (on this processor's clock): the
   *     batch is sent only if a publish call can finish before
   * @param latestLeaseUntil when the latest of their leases runs out: after an abandoned call, none
   *     of them is due again before
   * @param claimTook how long claiming them took; zero for heads handed over at commit
   */
  record Claimed(
      List<LeasedHead> heads, Instant leaseUntil, Instant latestLeaseUntil, Duration claimTook) {

    /** A batch whose heads share one lease. */
    Claimed(List<LeasedHead> heads, Instant leaseUntil, Duration claimTook) {
      this(heads, leaseUntil, leaseUntil, claimTook);
    }

    /** The messages of all heads, head after head. */
    List<OutboxMessage> messages() {
      List<OutboxMessage> messages = new ArrayList<>();
      heads.forEach(head -> messages.addAll(head.messages()));
      return messages;
    }

    /** This batch and heads of other aggregates, in one batch. */
    Claimed with(Claimed other) {
      List<LeasedHead> both = new ArrayList<>(heads);
      both.addAll(other.heads());
      return new Claimed(
          both,
          leaseUntil.isBefore(other.leaseUntil()) ? leaseUntil : other.leaseUntil(),
          latestLeaseUntil.isAfter(other.latestLeaseUntil())
              ? latestLeaseUntil
              : other.latestLeaseUntil(),
          claimTook.plus(other.claimTook()));
    }
  }

  /**
   * A published batch whose outcomes wait to be recorded.
   *
   * @param claimed the batch
   * @param messages its messages
   * @param results one per message, {@code null} for a message that was not sent
   * @param outcomes one per message
   * @param heads one per head: what the store records
   * @param publishTook how long publishing took
   */
  record Decided(
      Claimed claimed,
      List<OutboxMessage> messages,
      List<PublishResult> results,
      List<Outcome> outcomes,
      List<HeadOutcome> heads,
      Duration publishTook) {}

  private final OutboxOptions options;
  private final Supplier<String> instanceId;
  private final OutboxStore store;
  private final PublishCall publishCall;
  private final OutcomeRules rules;
  private final OutboxListener listeners;
  private final LastError lastError;
  private final Clock clock;
  private final InDoubtHeads inDoubt;
  private final BrokerGate broker;

  BatchCycle(
      OutboxOptions options,
      Supplier<String> instanceId,
      OutboxStore store,
      PublishCall publishCall,
      OutboxListener listeners,
      LastError lastError,
      Clock clock,
      InDoubtHeads inDoubt,
      BrokerGate broker) {
    this.options = options;
    this.instanceId = instanceId;
    this.inDoubt = inDoubt;
    this.broker = broker;
    this.store = store;
    this.publishCall = publishCall;
    this.rules = new OutcomeRules(options);
    this.listeners = listeners;
    this.lastError = lastError;
    this.clock = clock;
  }

  /**
   * Claims, publishes and records one batch, in series.
   *
   * @return how many messages were claimed
   */
  int run() {
    List<Decided> settled = settled();
    settled.forEach(this::record);
    long start = System.nanoTime();
    Instant leaseUntil = clock.instant().plus(options.leaseDuration());
    List<LeasedHead> heads = store.claim(claimRequest(true));
    if (heads.isEmpty()) {
      return settled.size();
    }
    record(publish(new Claimed(heads, leaseUntil, Duration.ofNanos(System.nanoTime() - start))));
    return settled.size() + heads.stream().mapToInt(head -> head.messages().size()).sum();
  }

  private void record(Decided decided) {
    long recording = System.nanoTime();
    store.record(decided.heads());
    recorded(decided, Duration.ofNanos(System.nanoTime() - recording));
  }

  /**
   * The outcomes of the heads whose uncertain sends have all come to an end since the last call.
   *
   * @return one decided batch per head, not yet recorded
   */
  List<Decided> settled() {
    return inDoubt.takeSettled().stream().map(this::settle).toList();
  }

  /**
   * Waits for the heads in doubt to settle, at most {@code timeout}: the processor stops.
   *
   * @return how many are still in doubt; they stay leased until their lease runs out
   */
  int awaitDoubts(Duration timeout) {
    inDoubt.awaitNone(timeout);
    return inDoubt.size();
  }

  /**
   * A claim of the options' batch size.
   *
   * @param newHeads whether to claim heads nobody holds, or only read the ones the record keeps
   * @return the request
   */
  ClaimRequest claimRequest(boolean newHeads) {
    return claimRequest(newHeads, options.batchSize());
  }

  /**
   * A claim of at most {@code limit} messages: one while the broker is probed.
   *
   * @param newHeads whether to claim heads nobody holds
   * @param limit at most this many messages
   * @return the request
   */
  ClaimRequest claimRequest(boolean newHeads, int limit) {
    return new ClaimRequest(instanceId.get(), limit, options.leaseDuration(), newHeads);
  }

  /**
   * Whether a head waits for the final outcome of a send.
   *
   * @return {@code true} while one is in doubt
   */
  boolean hasDoubts() {
    return inDoubt.size() > 0;
  }

  /**
   * Publishes a batch in rounds and decides each message's outcome. A message whose lease would run
   * out before a publish call could finish is not sent but released, and so is the rest of its
   * aggregate.
   *
   * @param claimed the batch
   * @return the outcomes, not yet recorded
   */
  Decided publish(Claimed claimed) {
    List<OutboxMessage> batch = claimed.messages();
    long sending = System.nanoTime();
    Sent sent = publishInRounds(batch, claimed.leaseUntil());
    Duration publishTook = Duration.ofNanos(System.nanoTime() - sending);
    if (!sent.abandoned()) {
      broker.tell(sent.results().values(), sending, publishCall.timeout());
    }
    Instant now = clock.instant();
    // A publisher interrupted by close() may still be sending: its messages wait at least until
    // the lease would have run out, so that no other claim puts them in flight a second time.
    Instant notBefore = sent.abandoned() ? claimed.latestLeaseUntil() : now;
    Map<UUID, Outcome> byId = new HashMap<>();
    List<HeadOutcome> heads = new ArrayList<>(claimed.heads().size());
    for (LeasedHead head : claimed.heads()) {
      Map<UUID, PublishResult> mine = resultsOf(head, sent.results());
      if (mine.values().stream().anyMatch(PublishResult::isUncertain)) {
        // Held, renewed and decided once every uncertain send has its final outcome; until then
        // its messages are neither recorded nor reported.
        inDoubt.hold(new InDoubtHeads.Doubt(head, mine, sent.atHardCap()));
        head.messages().forEach(m -> byId.put(m.id(), new Outcome.Released(m.id())));
        continue;
      }
      decide(head, mine, now, notBefore, byId);
      heads.add(HeadOutcomes.of(head, byId, now, options.holdAggregateOnDeadLetter()));
    }
    return decided(claimed, batch, sent.results(), byId, heads, publishTook);
  }

  /**
   * The outcomes of a head whose uncertain sends all have their final outcome now (or were given up
   * at the hard cap: then the messages wait a lease before they are sent again, since they may
   * still land).
   *
   * @param settled the head and its final results
   * @return the outcomes, not yet recorded
   */
  Decided settle(InDoubtHeads.Settled settled) {
    if (!settled.capped()) {
      broker.tell(settled.results().values(), System.nanoTime(), publishCall.timeout());
    }
    Instant now = clock.instant();
    Instant notBefore = settled.capped() ? now.plus(options.leaseDuration()) : now;
    LeasedHead head = settled.head();
    Map<UUID, Outcome> byId = new HashMap<>();
    decide(head, settled.results(), now, notBefore, byId);
    HeadOutcome outcome = HeadOutcomes.of(head, byId, now, options.holdAggregateOnDeadLetter());
    return decided(
        new Claimed(List.of(head), now, Duration.ZERO),
        head.messages(),
        settled.results(),
        byId,
        List.of(outcome),
        Duration.ZERO);
  }

  /** The results of a head's messages that were sent. */
  private static Map<UUID, PublishResult> resultsOf(
      LeasedHead head, Map<UUID, PublishResult> results) {
    Map<UUID, PublishResult> mine = new HashMap<>();
    for (OutboxMessage message : head.messages()) {
      PublishResult result = results.get(message.id());
      if (result != null) {
        mine.put(message.id(), result);
      }
    }
    return mine;
  }

  /**
   * Decides each message of a head. A head's cursor stops at its first message that was not
   * acknowledged: what was sent after it (in one call, without ordering) is not recorded, and is
   * sent again with it.
   */
  private void decide(
      LeasedHead head,
      Map<UUID, PublishResult> results,
      Instant now,
      Instant notBefore,
      Map<UUID, Outcome> into) {
    boolean stopped = false;
    for (OutboxMessage message : head.messages()) {
      PublishResult result = results.get(message.id());
      Outcome outcome =
          result == null || stopped
              ? new Outcome.Released(message.id())
              : rules.decide(message, result, now, notBefore);
      stopped |= !(outcome instanceof Outcome.Published);
      into.put(message.id(), outcome);
    }
  }

  private static Decided decided(
      Claimed claimed,
      List<OutboxMessage> batch,
      Map<UUID, PublishResult> sent,
      Map<UUID, Outcome> byId,
      List<HeadOutcome> heads,
      Duration publishTook) {
    List<Outcome> outcomes = new ArrayList<>(batch.size());
    List<PublishResult> results = new ArrayList<>(batch.size());
    for (OutboxMessage message : batch) {
      Outcome outcome = byId.get(message.id());
      outcomes.add(outcome);
      results.add(outcome instanceof Outcome.Released ? null : sent.get(message.id()));
    }
    return new Decided(claimed, batch, results, outcomes, heads, publishTook);
  }

  /**
   * Tells the listeners about a batch whose outcomes were recorded, and logs it.
   *
   * @param decided the batch
   * @param recordTook how long recording took
   */
  void recorded(Decided decided, Duration recordTook) {
    List<OutboxMessage> batch = decided.messages();
    int published = report(batch, decided.results(), decided.outcomes());
    listeners.batchCompleted(
        batch.size(), published, decided.claimed().claimTook(), decided.publishTook(), recordTook);
  }

  /**
   * Releases a batch that will not be published after all: outcomes that give up its leases.
   *
   * @param claimed the batch
   * @return one release per head
   */
  static List<HeadOutcome> release(Claimed claimed) {
    return claimed.heads().stream().map(HeadOutcomes::released).toList();
  }

  /**
   * What the rounds of a batch produced: a result per sent message (unsent ones have none), whether
   * the last call was given up on, and what to do when uncertain sends reach the hard cap (see
   * {@link PublishCall.Attempt#atHardCap()}).
   */
  private record Sent(Map<UUID, PublishResult> results, boolean abandoned, Runnable atHardCap) {

    Sent(Map<UUID, PublishResult> results) {
      this(results, false, () -> {});
    }
  }

  /**
   * Publishes round by round within one publish timeout. An aggregate whose message failed sends
   * nothing more in this batch; after an abandoned call, or once the time is up, nothing more is
   * sent at all.
   */
  private Sent publishInRounds(List<OutboxMessage> batch, Instant leaseUntil) {
    Map<UUID, PublishResult> results = new HashMap<>();
    Set<String> stopped = new HashSet<>();
    if (!leaseUntil.isAfter(clock.instant().plus(publishCall.timeout()))) {
      LOG.debug("Lease of a batch of {} too short to publish it; releasing it", batch.size());
      return new Sent(results);
    }
    long deadline = System.nanoTime() + publishCall.timeout().toNanos();
    List<Runnable> atHardCap = new ArrayList<>();
    Runnable allAtHardCap = () -> atHardCap.forEach(Runnable::run);
    List<List<OutboxMessage>> rounds =
        options.orderedPerAggregate() ? Rounds.of(batch) : List.of(batch);
    for (List<OutboxMessage> round : rounds) {
      List<OutboxMessage> sendable =
          round.stream().filter(m -> !stopped.contains(Rounds.key(m))).toList();
      long left = deadline - System.nanoTime();
      if (sendable.isEmpty() || left <= 0) {
        continue;
      }
      PublishCall.Attempt attempt = publishCall.publish(sendable, Duration.ofNanos(left));
      atHardCap.add(attempt.atHardCap());
      for (int i = 0; i < sendable.size(); i++) {
        PublishResult result = attempt.results().get(i);
        results.put(sendable.get(i).id(), result);
        if (!result.isPublished() && options.orderedPerAggregate()) {
          stopped.add(Rounds.key(sendable.get(i)));
        }
      }
      if (attempt.abandoned()) {
        boolean interrupted = attempt.results().stream().noneMatch(PublishResult::isUncertain);
        return new Sent(results, interrupted, allAtHardCap);
      }
    }
    return new Sent(results, false, allAtHardCap);
  }

  /** Tells the listeners about each message, logs the batch, and counts what was published. */
  private int report(
      List<OutboxMessage> batch, List<PublishResult> results, List<Outcome> outcomes) {
    int published = 0;
    int deadLettered = 0;
    int held = 0;
    String firstError = null;
    for (int i = 0; i < batch.size(); i++) {
      OutboxMessage message = batch.get(i);
      PublishResult result = results.get(i);
      Outcome outcome = outcomes.get(i);
      if (outcome instanceof Outcome.Released) {
        continue;
      }
      if (outcome instanceof Outcome.Published done) {
        published++;
        listeners.published(message, result.destination(), done.publishedAt());
      } else if (outcome instanceof Outcome.Failed failed) {
        firstError = firstError == null ? failed.error() : firstError;
        listeners.failed(message, failed.attempts(), result.failure(), failed.nextAttemptAt());
      } else if (outcome instanceof Outcome.Held waiting) {
        // The broker's outage, not the message's failure: its lines say so, nothing is counted.
        firstError = firstError == null ? waiting.error() : firstError;
        held++;
      } else if (outcome instanceof Outcome.DeadLettered dead) {
        firstError = firstError == null ? dead.error() : firstError;
        deadLettered++;
        listeners.deadLettered(message, dead.attempts(), result.failure());
      }
    }
    if (firstError == null) {
      LOG.debug("Batch of {}: {} published", batch.size(), published);
    } else {
      lastError.set(firstError);
      // Nothing published and nothing refused for good: the broker's outage line says it.
      boolean unreachable = held > 0 && published == 0 && deadLettered == 0;
      LOG.atLevel(unreachable ? Level.DEBUG : options.failureLogLevel())
          .log(
              "Batch of {}: {} published{}; first error: {}",
              batch.size(),
              published,
              held == 0 ? "" : ", " + held + " waiting for the broker",
              firstError);
    }
    return published;
  }
}
