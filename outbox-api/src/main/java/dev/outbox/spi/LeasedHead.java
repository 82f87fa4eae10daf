package dev.outbox.spi;

import dev.outbox.OutboxMessage;
import java.util.List;
import java.util.Objects;

/**
 * One aggregate whose head a processor holds, with the messages it read behind the head's cursor.
 *
 * @param lease the hold, with the token that fences every write of the holder
 * @param messages the aggregate's next undelivered messages, in seq order, contiguous, starting at
 *     the cursor plus one; the first carries the head's failed attempts so far
 */
public record LeasedHead(Lease lease, List<OutboxMessage> messages) {

  /** Checks the components and copies the list. */
  public LeasedHead {
    Objects.requireNonNull(lease, "lease");
    messages = List.copyOf(messages);
  }
}
