package dev.outbox.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Turns the per-message decisions of one head into the one outcome the store records for it: the
 * cursor moves over the acknowledged prefix of the head's messages; the first message that was not
 * acknowledged decides what becomes of the lease.
 */
final class HeadOutcomes {

  private HeadOutcomes() {}

  /**
   * The outcome of a head.
   *
   * @param head the head and the messages that were in the batch
   * @param decided the decision per message id; a message without one was not sent
   * @param now the processor's clock, to turn a retry time into a delay
   * @param hold whether a dead letter holds the aggregate
   */
  static HeadOutcome of(LeasedHead head, Map<UUID, Outcome> decided, Instant now, boolean hold) {
    List<OutboxMessage> messages = head.messages();
    if (messages.isEmpty()) {
      return new HeadOutcome.Released(head.lease(), 0);
    }
    long delivered = messages.get(0).seq() - 1;
    for (OutboxMessage message : messages) {
      Outcome outcome = decided.get(message.id());
      if (outcome instanceof Outcome.Published) {
        delivered = message.seq();
        continue;
      }
      if (outcome instanceof Outcome.Failed failed) {
        Duration after = Duration.between(now, failed.nextAttemptAt());
        return new HeadOutcome.Retry(
            head.lease(),
            delivered,
            failed.attempts(),
            failed.error(),
            after.isNegative() ? Duration.ZERO : after);
      }
      if (outcome instanceof Outcome.Held held) {
        // Recorded as a retry that counts nothing: the head keeps its attempts and is due again.
        Duration after = Duration.between(now, held.nextAttemptAt());
        return new HeadOutcome.Retry(
            head.lease(),
            delivered,
            held.attempts(),
            held.error(),
            after.isNegative() ? Duration.ZERO : after);
      }
      if (outcome instanceof Outcome.DeadLettered dead) {
        return new HeadOutcome.DeadLettered(
            head.lease(),
            delivered,
            message.id(),
            message.seq(),
            dead.attempts(),
            dead.error(),
            dead.deadLetteredAt(),
            hold);
      }
      return new HeadOutcome.Released(head.lease(), delivered);
    }
    return new HeadOutcome.Delivered(head.lease(), delivered);
  }

  /**
   * Gives a head up unsent: the cursor stays where it was claimed.
   *
   * @param head the head
   * @return the release
   */
  static HeadOutcome released(LeasedHead head) {
    return of(head, Map.of(), Instant.EPOCH, false);
  }
}
