package dev.outbox.testing;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.Outcome;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@link OutboxStore} in front of an {@link InMemoryOutboxStore} that fails its next claims on
 * request, as a database that went away would, and logs its transactions, its claims and the limits
 * cleanup asked for.
 */
public final class FlakyStore implements OutboxStore {

  private final InMemoryOutboxStore store;
  private final AtomicInteger failingClaims = new AtomicInteger();
  private final List<Integer> deleteLimits = new CopyOnWriteArrayList<>();
  private final List<String> transactions = new CopyOnWriteArrayList<>();
  private volatile boolean refuseInterrupted;
  private volatile UUID unrecordable;
  private final List<List<OutboxMessage>> claims = new CopyOnWriteArrayList<>();

  /**
   * Wraps a store.
   *
   * @param store the store that answers when it does not fail
   */
  public FlakyStore(InMemoryOutboxStore store) {
    this.store = store;
  }

  /**
   * Makes the next claims throw, with or without a record in the same transaction.
   *
   * @param count how many
   * @return this store
   */
  public FlakyStore failNextClaims(int count) {
    failingClaims.set(count);
    return this;
  }

  /**
   * The limit of every {@link #deletePublished} call so far.
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
   * Makes every record that holds an outcome of this message throw, as a database that refuses a
   * value does.
   *
   * @param id the message
   * @return this store
   */
  public FlakyStore refuseOutcomesOf(UUID id) {
    unrecordable = id;
    return this;
  }

  /**
   * The transactions so far, one entry each: {@code claim}, {@code record} or {@code
   * recordAndClaim}, failed ones included.
   *
   * @return the names, in call order
   */
  public List<String> transactions() {
    return List.copyOf(transactions);
  }

  /**
   * What each claim returned, in call order, empty claims included.
   *
   * @return the claimed batches
   */
  public List<List<OutboxMessage>> claims() {
    return List.copyOf(claims);
  }

  @Override
  public List<OutboxMessage> claim(ClaimRequest request) {
    transactions.add("claim");
    failIfScripted();
    return claimed(store.claim(request));
  }

  @Override
  public void record(String instanceId, Collection<? extends Outcome> outcomes) {
    transactions.add("record");
    refuseIfInterrupted();
    refuseIfUnrecordable(outcomes);
    store.record(instanceId, outcomes);
  }

  /** One transaction: a scripted failure changes nothing. */
  @Override
  public List<OutboxMessage> recordAndClaim(
      String instanceId, Collection<? extends Outcome> outcomes, ClaimRequest request) {
    transactions.add("recordAndClaim");
    failIfScripted();
    refuseIfUnrecordable(outcomes);
    synchronized (store) {
      store.record(instanceId, outcomes);
      return claimed(store.claim(request));
    }
  }

  private void refuseIfUnrecordable(Collection<? extends Outcome> outcomes) {
    if (outcomes.stream().anyMatch(outcome -> outcome.messageId().equals(unrecordable))) {
      throw new IllegalStateException("value refused (scripted)");
    }
  }

  private void refuseIfInterrupted() {
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

  private List<OutboxMessage> claimed(List<OutboxMessage> batch) {
    claims.add(batch);
    return batch;
  }

  @Override
  public OutboxStats stats() {
    if (failingClaims.get() > 0) {
      throw new IllegalStateException("database unreachable (scripted)");
    }
    return store.stats();
  }

  @Override
  public int deletePublished(Instant publishedBefore, int limit) {
    deleteLimits.add(limit);
    return store.deletePublished(publishedBefore, limit);
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
  public int replayDeadLetters(Collection<UUID> ids, Instant now) {
    return store.replayDeadLetters(ids, now);
  }

  @Override
  public int purgeDeadLetters(Collection<UUID> ids) {
    return store.purgeDeadLetters(ids);
  }
}
