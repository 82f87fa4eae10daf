package dev.outbox;

import java.time.Instant;
import java.util.Objects;

/**
 * A message that failed {@link OutboxOptions#maxAttempts()} times, or failed in a way no retry can
 * fix, and was moved out of the outbox.
 *
 * @param message the message as it was when it was moved, with its failed attempt count
 * @param lastError the last failure, as the processor recorded it
 * @param deadLetteredAt when it was moved
 */
public record DeadLetter(OutboxMessage message, String lastError, Instant deadLetteredAt) {

  /** Checks the required components. */
  public DeadLetter {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
  }
}
