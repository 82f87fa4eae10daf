package dev.outbox;

import static dev.outbox.OptionChecks.between;
import static dev.outbox.OptionChecks.notNull;

import org.slf4j.event.Level;

/**
 * What happens when a publish fails: how many attempts, the backoff between them, whether a dead
 * letter holds back its aggregate, and the level at which retried failures are logged.
 */
record FailureSettings(
    int maxAttempts,
    RetryPolicy retryPolicy,
    boolean holdAggregateOnDeadLetter,
    Level failureLogLevel) {

  static final FailureSettings DEFAULTS =
      new FailureSettings(
          OutboxOptions.DEFAULT_MAX_ATTEMPTS,
          OutboxOptions.DEFAULT_RETRY_POLICY,
          false,
          Level.WARN);

  FailureSettings withMaxAttempts(int attempts) {
    return new FailureSettings(
        between("maxAttempts", attempts, 1, Integer.MAX_VALUE),
        retryPolicy,
        holdAggregateOnDeadLetter,
        failureLogLevel);
  }

  FailureSettings withRetryPolicy(RetryPolicy policy) {
    return new FailureSettings(
        maxAttempts, notNull("retryPolicy", policy), holdAggregateOnDeadLetter, failureLogLevel);
  }

  FailureSettings withHoldAggregateOnDeadLetter(boolean hold) {
    return new FailureSettings(maxAttempts, retryPolicy, hold, failureLogLevel);
  }

  FailureSettings withFailureLogLevel(Level level) {
    return new FailureSettings(
        maxAttempts, retryPolicy, holdAggregateOnDeadLetter, notNull("failureLogLevel", level));
  }
}
