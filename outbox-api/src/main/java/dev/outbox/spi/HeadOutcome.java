package dev.outbox.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What a processor records for one head it holds after publishing that head's messages. Each
 * outcome advances the head's cursor to {@link #deliveredSeq()} (never back) and says what becomes
 * of the lease. The store applies it only while the head still carries the lease's token.
 */
public sealed interface HeadOutcome {

  /**
   * The hold the outcome is recorded under.
   *
   * @return the lease
   */
  Lease lease();

  /**
   * The new cursor: every message of the aggregate up to this seq was acknowledged or given up.
   *
   * @return the seq
   */
  long deliveredSeq();

  /**
   * Every message sent was acknowledged. A head with more messages behind the cursor may stay
   * leased to the holder, which reads them at once ({@link OutboxStore#recordAndClaim}); otherwise
   * it is released.
   *
   * @param lease the hold
   * @param deliveredSeq the seq of the last acknowledged message
   */
  record Delivered(Lease lease, long deliveredSeq) implements HeadOutcome {
    /** Checks the lease. */
    public Delivered {
      Objects.requireNonNull(lease, "lease");
    }
  }

  /**
   * The holder gives the head up without a failure (it stops, or the lease got too short to send):
   * the head is claimable again at once and counts no attempt.
   *
   * @param lease the hold
   * @param deliveredSeq the seq of the last acknowledged message, or the cursor it was claimed at
   */
  record Released(Lease lease, long deliveredSeq) implements HeadOutcome {
    /** Checks the lease. */
    public Released {
      Objects.requireNonNull(lease, "lease");
    }
  }

  /**
   * The message after the cursor failed; the head is released and claimable again after a delay.
   *
   * @param lease the hold
   * @param deliveredSeq the seq of the last acknowledged message before it
   * @param attempts the failed attempts of that message so far, this one included
   * @param error the failure, shortened for storage
   * @param retryAfter how long from now (on the store's clock) until the next attempt
   */
  record Retry(Lease lease, long deliveredSeq, int attempts, String error, Duration retryAfter)
      implements HeadOutcome {
    /** Checks the components. */
    public Retry {
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(retryAfter, "retryAfter");
    }
  }

  /**
   * The message after the cursor is given up: it is copied to the dead letters in the same
   * transaction. Without a hold the cursor moves past it and the aggregate goes on; with a hold the
   * cursor waits at it until the dead letter is replayed or purged.
   *
   * @param lease the hold
   * @param deliveredSeq the seq of the last acknowledged message before it
   * @param messageId the dead-lettered message
   * @param seq its seq
   * @param attempts its failed attempts, this one included
   * @param error the last failure, shortened for storage
   * @param deadLetteredAt when
   * @param hold whether the aggregate waits at the dead letter
   */
  record DeadLettered(
      Lease lease,
      long deliveredSeq,
      UUID messageId,
      long seq,
      int attempts,
      String error,
      Instant deadLetteredAt,
      boolean hold)
      implements HeadOutcome {
    /** Checks the components. */
    public DeadLettered {
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
    }
  }
}
