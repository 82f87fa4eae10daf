package dev.outbox;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Lists, counts, replays and purges the messages that were given up. */
public interface DeadLetterService {

  /**
   * One page of dead letters, oldest first.
   *
   * @param query filter and page
   * @return the page
   */
  List<DeadLetter> list(DeadLetterQuery query);

  /**
   * One dead letter, with its payload, headers and last error.
   *
   * @param id the message id
   * @return the dead letter, or empty when there is none with that id
   */
  Optional<DeadLetter> find(UUID id);

  /**
   * How many dead letters match, whatever the page.
   *
   * @param query the filter
   * @return the count
   */
  long count(DeadLetterQuery query);

  /**
   * Puts dead letters back into the outbox as pending with no failed attempt, and wakes the
   * processor. Each keeps its id. One its aggregate is held on ({@code holdAggregateOnDeadLetter})
   * goes out in place, before the later messages of its aggregate; any other is appended to its
   * aggregate again, after what is pending there.
   *
   * @param ids the dead letters
   * @return how many were replayed
   */
  int replay(Collection<UUID> ids);

  /**
   * Replays every dead letter that matches the filter, page after page.
   *
   * @param query the filter; its page is ignored
   * @return how many were replayed
   */
  int replayAll(DeadLetterQuery query);

  /**
   * Deletes dead letters for good.
   *
   * @param ids the dead letters
   * @return how many were deleted
   */
  int purge(Collection<UUID> ids);

  /**
   * Deletes every dead letter that matches the filter.
   *
   * @param query the filter; its page is ignored
   * @return how many were deleted
   */
  int purgeAll(DeadLetterQuery query);
}
