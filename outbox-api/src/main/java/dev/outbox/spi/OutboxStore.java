package dev.outbox.spi;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Where the engine reads and records outbox messages. The persistence adapter implements it on the
 * database that holds the business data; tests implement it in memory.
 *
 * <p>Every method runs in its own short transaction, never one held open across a broker call.
 * Implementations are thread-safe; several processors, in one JVM or many, share one store.
 */
public interface OutboxStore {

  /**
   * Claims due pending messages: takes them in position order, skips any message leased by another
   * live claim, and (when asked to keep order) any message whose aggregate has an earlier pending
   * message that is not due or is leased — so that what it returns of one aggregate is always the
   * aggregate's first pending messages, in order — and (when asked) any message whose aggregate has
   * a dead letter; stamps the lease on those it returns. Two concurrent claims never return the
   * same message, nor messages of one aggregate.
   *
   * @param request what to claim
   * @return the claimed messages in position order; empty when nothing is due
   */
  List<OutboxMessage> claim(ClaimRequest request);

  /**
   * Records the outcomes of one published batch in one transaction: published messages are marked
   * published, failed ones get their attempt count, error and next attempt time and lose their
   * lease, released ones only lose their lease, dead-lettered ones move to the dead-letter table. A
   * failure is recorded only while the message is still leased to {@code instanceId}, so a
   * processor that lost its lease never undoes the work of the instance that took over.
   *
   * @param instanceId the processor that claimed the messages
   * @param outcomes one outcome per message
   */
  void record(String instanceId, Collection<? extends Outcome> outcomes);

  /**
   * Records the outcomes of published batches as {@link #record} does and then claims as {@link
   * #claim} does, in one transaction, so that the claim sees what the record changed. The processor
   * calls it once per batch while the next batch is being published. Stores that can should
   * override it: this default takes two transactions.
   *
   * @param instanceId the processor that claimed the recorded messages
   * @param outcomes one outcome per recorded message
   * @param request what to claim
   * @return the claimed messages in position order; empty when nothing is due
   */
  default List<OutboxMessage> recordAndClaim(
      String instanceId, Collection<? extends Outcome> outcomes, ClaimRequest request) {
    record(instanceId, outcomes);
    return claim(request);
  }

  /**
   * Counts what waits, for health checks and gauges. Uses indexes only; cheap enough to call every
   * few seconds.
   *
   * @return the counts
   */
  OutboxStats stats();

  /**
   * Deletes published messages, at most {@code limit} of them.
   *
   * @param publishedBefore delete messages published before this instant
   * @param limit the most rows one call deletes
   * @return how many were deleted
   */
  int deletePublished(Instant publishedBefore, int limit);

  /**
   * Lists dead letters, oldest first.
   *
   * @param query the filter and page
   * @return the page
   */
  List<DeadLetter> findDeadLetters(DeadLetterQuery query);

  /**
   * Counts dead letters, ignoring the page of the query.
   *
   * @param query the filter
   * @return the count
   */
  long countDeadLetters(DeadLetterQuery query);

  /**
   * Moves dead letters back to the outbox as pending with no failed attempt, due at once; they keep
   * their id and position, so per-aggregate order is kept.
   *
   * @param ids the dead letters to replay
   * @param now the new due time
   * @return how many were replayed
   */
  int replayDeadLetters(Collection<UUID> ids, Instant now);

  /**
   * Deletes dead letters for good.
   *
   * @param ids the dead letters to delete
   * @return how many were deleted
   */
  int purgeDeadLetters(Collection<UUID> ids);
}
