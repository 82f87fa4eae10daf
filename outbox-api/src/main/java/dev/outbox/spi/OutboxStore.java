package dev.outbox.spi;

import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the engine reads and records outbox messages. The persistence adapter implements it on the
 * database that holds the business data; tests implement it in memory.
 *
 * <p>The store keeps messages append-only, each with a gap-free per-aggregate {@code seq}, and one
 * head per aggregate: the last seq written, the cursor (every seq up to it was delivered or given
 * up), and the lease. Processors hold heads, not messages: a head is leased to at most one holder
 * at a time, on the store's clock, and every write of a holder checks the lease token.
 *
 * <p>Every method runs in its own short transaction, never one held open across a broker call.
 * Implementations are thread-safe; several processors, in one JVM or many, share one store.
 */
public interface OutboxStore {

  /**
   * Claims heads that are due (nobody holds them, no retry is pending, not held on a dead letter),
   * oldest due first, skipping any head another transaction has locked; grants each a new lease
   * token and reads its next messages, so that the batch holds at most {@link ClaimRequest#limit()}
   * messages. Two concurrent claims never return the same head.
   *
   * @param request what to claim; {@link ClaimRequest#newHeads()} is taken as {@code true}
   * @return the leased heads with their messages; empty when nothing is due
   */
  default List<LeasedHead> claim(ClaimRequest request) {
    return recordAndClaim(List.of(), request);
  }

  /**
   * Records the outcomes of published heads and then claims, in one transaction. A {@link
   * HeadOutcome.Delivered} head with more messages behind its cursor stays leased to the holder
   * under the same token, for at least {@link ClaimRequest#keptLease()} from the transaction's
   * start, and comes back first with its next messages (a continuation, no claim); then, when
   * {@link ClaimRequest#newHeads()}, new heads are claimed as {@link #claim} does for what is left
   * of the limit.
   *
   * @param outcomes one outcome per head the holder publishes no more of
   * @param request the holder and what to read or claim
   * @return continued heads, then new ones; empty when nothing is due
   */
  List<LeasedHead> recordAndClaim(Collection<? extends HeadOutcome> outcomes, ClaimRequest request);

  /**
   * Records outcomes with no continuation: a head with more messages behind its cursor is released,
   * claimable at once by any processor. Used when the holder stops.
   *
   * @param outcomes one outcome per head
   */
  void record(Collection<? extends HeadOutcome> outcomes);

  /**
   * Extends the leases of heads still in flight (a long publish) to {@code lease} from now on the
   * store's clock.
   *
   * @param instanceId the holder
   * @param leases the holds to renew
   * @param lease the new length of each
   * @return the holds that were not renewed: taken over by another processor or released
   */
  List<Lease> renew(String instanceId, Collection<Lease> leases, Duration lease);

  /**
   * Counts what waits, for health checks and gauges. Cheap enough to call every few seconds.
   *
   * @return the counts
   */
  OutboxStats stats();

  /**
   * Deletes delivered messages (at or before their head's cursor) written before a cutoff, at most
   * {@code limit} of them, and then heads with nothing pending and no message left.
   *
   * @param createdBefore delete messages written before this instant
   * @param limit the most rows one call deletes
   * @return how many messages were deleted
   */
  int deleteDelivered(Instant createdBefore, int limit);

  /**
   * Deletes messages written before a cutoff whatever their head's cursor, at most {@code limit} of
   * them, and keeps every head (it holds the aggregate's last seq). The cleanup of {@link
   * dev.outbox.DeliveryMode#CDC}, where the database's log has carried the messages long before.
   *
   * @param createdBefore delete messages written before this instant
   * @param limit the most rows one call deletes
   * @return how many messages were deleted
   */
  int deleteWritten(Instant createdBefore, int limit);

  /**
   * Counts the aggregates waiting for a retry, held, and leased per instance.
   *
   * @return the counts
   */
  AggregateCounts aggregateCounts();

  /**
   * Reads one dead letter.
   *
   * @param id the message id
   * @return the dead letter, or empty when there is none with that id
   */
  Optional<DeadLetter> findDeadLetter(UUID id);

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
   * Sends dead letters again. A dead letter its aggregate is held on is delivered in place: the
   * hold is lifted and the head is due at once with no failed attempt. Any other is appended to its
   * aggregate again with a new seq, after what is pending. Either way it keeps its id.
   *
   * @param ids the dead letters to replay
   * @return how many were replayed
   */
  int replayDeadLetters(Collection<UUID> ids);

  /**
   * Deletes dead letters for good. An aggregate held on one goes on past it.
   *
   * @param ids the dead letters to delete
   * @return how many were deleted
   */
  int purgeDeadLetters(Collection<UUID> ids);

  /**
   * How writers of this store in this JVM hand committed messages to a running outbox.
   *
   * @return the hand-over; empty by default, and the processor then finds new messages by polling
   */
  default Optional<CommitHandOver> commitHandOver() {
    return Optional.empty();
  }
}
