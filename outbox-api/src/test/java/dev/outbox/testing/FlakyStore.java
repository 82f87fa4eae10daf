package dev.outbox.testing;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.Lease;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link OutboxStore} in front of an {@link InMemoryOutboxStore} that fails its next claims on
 * request, as a database that went away would, and logs its transactions, what they returned, and
 * the limits cleanup asked for.
 */
public final class FlakyStore implements OutboxStore {

  /**
   * One transaction the engine ran.
   *
   * @param method {@code claim}, {@code recordAndClaim} or {@code record}
   * @param outcomes how many head outcomes it recorded
   * @param newHeads whether it claimed heads nobody held ({@code false} for {@code record}, and for
   *     a record that only reads on behind the heads it keeps)
   * @param returned the heads it returned, continued ones first; empty for a failed transaction
   * @param failed whether it threw (and so changed nothing)
   */
  public record Transaction(
      String method, int outcomes, boolean newHeads, List<LeasedHead> returned, boolean failed) {

    /**
     * The messages it returned, head after head.
     *
     * @return the messages
     */
    public List<OutboxMessage> messages() {
      List<OutboxMessage> messages = new ArrayList<>();
      returned.forEach(head -> messages.addAll(head.messages()));
      return messages;
    }
  }

  private final InMemoryOutboxStore store;
  private final AtomicInteger failingClaims = new AtomicInteger();
  private final List<Integer> deleteLimits = new CopyOnWriteArrayList<>();
  private final List<Transaction> transactions = new CopyOnWriteArrayList<>();
  private volatile boolean refuseInterrupted;
  private volatile String unrecordable;
  private volatile boolean down;

  /**
   * Wraps a store.
   *
   * @param store the store that answers when it does not fail
   */
  public FlakyStore(InMemoryOutboxStore store) {
    this.store = store;
  }

  /**
   * Makes the next claims ({@code claim} or {@code recordAndClaim}, with or without outcomes)
   * throw, changing nothing; and {@link #stats()} while any are left.
   *
   * @param count how many
   * @return this store
   */
  public FlakyStore failNextClaims(int count) {
    failingClaims.set(count);
    return this;
  }

  /**
   * Takes the database away: every claim, record, renewal and stats call throws, changing nothing,
   * until it is back.
   *
   * @param unreachable whether the database is away
   * @return this store
   */
  public FlakyStore down(boolean unreachable) {
    down = unreachable;
    return this;
  }

  /**
   * The limit of every {@link #deleteDelivered} call so far.
   *
   * @return the limits, in call order
   */
  public List<Integer> deleteLimits() {
    return List.copyOf(deleteLimits);
  }

  /**
   * Makes claims and records throw on an interrupted thread, as a connection pool does.
   *
   * @return this store
   */
  public FlakyStore refuseInterruptedThreads() {
    refuseInterrupted = true;
    return this;
  }

  /**
   * Makes every transaction that records an outcome of this aggregate's head throw, as a database
   * that refuses a value does.
   *
   * @param aggregateType the aggregate type
   * @param aggregateId the aggregate id
   * @return this store
   */
  public FlakyStore refuseOutcomesOf(String aggregateType, String aggregateId) {
    unrecordable = aggregateType + '/' + aggregateId;
    return this;
  }

  /**
   * The transactions so far, failed ones included, in call order.
   *
   * @return the transactions
   */
  public List<Transaction> transactions() {
    return List.copyOf(transactions);
  }

  /**
   * The names of the transactions so far: {@code claim}, {@code recordAndClaim} or {@code record}.
   *
   * @return the names, in call order
   */
  public List<String> methods() {
    return transactions.stream().map(Transaction::method).toList();
  }

  /**
   * What each transaction that claimed new heads returned (continued heads included), in call
   * order, empty claims included, failed ones left out.
   *
   * @return the batches
   */
  public List<List<OutboxMessage>> claims() {
    return transactions.stream()
        .filter(t -> t.newHeads() && !t.failed())
        .map(Transaction::messages)
        .toList();
  }

  /**
   * Every lease any transaction returned, in call order.
   *
   * @return the leases
   */
  public List<Lease> grants() {
    return transactions.stream()
        .flatMap(t -> t.returned().stream())
        .map(LeasedHead::lease)
        .toList();
  }

  @Override
  public List<LeasedHead> claim(ClaimRequest request) {
    try {
      failIfScripted();
      List<LeasedHead> heads = store.claim(request);
      transactions.add(new Transaction("claim", 0, true, heads, false));
      return heads;
    } catch (RuntimeException e) {
      transactions.add(new Transaction("claim", 0, true, List.of(), true));
      throw e;
    }
  }

  /** One transaction: a scripted failure changes nothing. */
  @Override
  public List<LeasedHead> recordAndClaim(
      Collection<? extends HeadOutcome> outcomes, ClaimRequest request) {
    try {
      failIfScripted();
      refuseIfUnrecordable(outcomes);
      List<LeasedHead> heads = store.recordAndClaim(outcomes, request);
      transactions.add(
          new Transaction("recordAndClaim", outcomes.size(), request.newHeads(), heads, false));
      return heads;
    } catch (RuntimeException e) {
      transactions.add(
          new Transaction("recordAndClaim", outcomes.size(), request.newHeads(), List.of(), true));
      throw e;
    }
  }

  @Override
  public void record(Collection<? extends HeadOutcome> outcomes) {
    try {
      refuseIfInterrupted();
      refuseIfUnrecordable(outcomes);
      store.record(outcomes);
      transactions.add(new Transaction("record", outcomes.size(), false, List.of(), false));
    } catch (RuntimeException e) {
      transactions.add(new Transaction("record", outcomes.size(), false, List.of(), true));
      throw e;
    }
  }

  private void refuseIfUnrecordable(Collection<? extends HeadOutcome> outcomes) {
    String refused = unrecordable;
    if (refused != null
        && outcomes.stream()
            .map(HeadOutcome::lease)
            .anyMatch(lease -> refused.equals(lease.aggregateType() + '/' + lease.aggregateId()))) {
      throw new IllegalStateException("value refused (scripted)");
    }
  }

  private void refuseIfInterrupted() {
    if (down) {
      throw new IllegalStateException("database unreachable (scripted outage)");
    }
    if (refuseInterrupted && Thread.currentThread().isInterrupted()) {
      throw new IllegalStateException("interrupted while waiting for a connection (scripted)");
    }
  }

  private void failIfScripted() {
    refuseIfInterrupted();
    if (failingClaims.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IllegalStateException("database unreachable (scripted)");
    }
  }

  @Override
  public List<Lease> renew(String instanceId, Collection<Lease> leases, Duration lease) {
    refuseIfInterrupted();
    return store.renew(instanceId, leases, lease);
  }

  @Override
  public OutboxStats stats() {
    if (failingClaims.get() > 0 || down) {
      throw new IllegalStateException("database unreachable (scripted)");
    }
    return store.stats();
  }

  @Override
  public int deleteDelivered(Instant createdBefore, int limit) {
    deleteLimits.add(limit);
    return store.deleteDelivered(createdBefore, limit);
  }

  @Override
  public int deleteWritten(Instant createdBefore, int limit) {
    deleteLimits.add(limit);
    return store.deleteWritten(createdBefore, limit);
  }

  @Override
  public AggregateCounts aggregateCounts() {
    return store.aggregateCounts();
  }

  @Override
  public Optional<DeadLetter> findDeadLetter(UUID id) {
    return store.findDeadLetter(id);
  }

  @Override
  public List<DeadLetter> findDeadLetters(DeadLetterQuery query) {
    return store.findDeadLetters(query);
  }

  @Override
  public long countDeadLetters(DeadLetterQuery query) {
    return store.countDeadLetters(query);
  }

  @Override
  public int replayDeadLetters(Collection<UUID> ids) {
    return store.replayDeadLetters(ids);
  }

  @Override
  public int purgeDeadLetters(Collection<UUID> ids) {
    return store.purgeDeadLetters(ids);
  }

  @Override
  public Optional<CommitHandOver> commitHandOver() {
    return store.commitHandOver();
  }
}
