package dev.outbox.internal;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What the processor decided for one message of a batch after publishing it; {@link HeadOutcomes}
 * turns the decisions of one aggregate into the {@link dev.outbox.spi.HeadOutcome} the store
 * records.
 */
sealed interface Outcome {

  /**
   * The claimed message.
   *
   * @return its outbox id
   */
  UUID messageId();

  /**
   * The broker acknowledged the message.
   *
   * @param messageId the outbox id
   * @param publishedAt when
   */
  record Published(UUID messageId, Instant publishedAt) implements Outcome {
    /** Checks the components. */
    public Published {
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(publishedAt, "publishedAt");
    }
  }

  /**
   * The attempt failed; the message stays pending until {@code nextAttemptAt}.
   *
   * @param messageId the outbox id
   * @param attempts the failed attempts so far, including this one
   * @param error the failure, shortened for storage
   * @param nextAttemptAt when the message becomes due again
   */
  record Failed(UUID messageId, int attempts, String error, Instant nextAttemptAt)
      implements Outcome {
    /** Checks the components. */
    public Failed {
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * The broker or the connection failed, not the message ({@link
   * dev.outbox.PublishException#isBrokerFault()}): no attempt is counted, and the message is due
   * again at {@code nextAttemptAt} (now, unless the send may still land).
   *
   * @param messageId the outbox id
   * @param attempts the message's failed attempts, unchanged
   * @param error the failure, shortened for storage
   * @param nextAttemptAt when the message becomes due again
   */
  record Held(UUID messageId, int attempts, String error, Instant nextAttemptAt)
      implements Outcome {
    /** Checks the components. */
    public Held {
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * The message is given up: moved to the dead letters in the same transaction.
   *
   * @param messageId the outbox id
   * @param attempts the failed attempts, including this one
   * @param error the last failure, shortened for storage
   * @param deadLetteredAt when
   */
  record DeadLettered(UUID messageId, int attempts, String error, Instant deadLetteredAt)
      implements Outcome {
    /** Checks the components. */
    public DeadLettered {
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
    }
  }

  /**
   * The message was not sent: an earlier message of its aggregate in the same batch failed, so it
   * must wait. Its lease is released and nothing else changes; it counts no attempt.
   *
   * @param messageId the outbox id
   */
  record Released(UUID messageId) implements Outcome {
    /** Checks the id. */
    public Released {
      Objects.requireNonNull(messageId, "messageId");
    }
  }
}
