package dev.outbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before the next attempt to publish a message that failed. An immutable value.
 *
 * <pre>{@code
 * RetryPolicy.exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5)).withJitter(0.2)
 * RetryPolicy.fixed(Duration.ofSeconds(30))
 * }</pre>
 */
public final class RetryPolicy {

  /**
   * The longest duration any delay or option accepts (100 years), so that time arithmetic never
   * overflows.
   */
  static final Duration LONGEST = Duration.ofDays(36_500);

  private final Duration initialDelay;
  private final double multiplier;
  private final Duration maxDelay;
  private final double jitter;

  private RetryPolicy(Duration initialDelay, double multiplier, Duration maxDelay, double jitter) {
    this.initialDelay = initialDelay;
    this.multiplier = multiplier;
    this.maxDelay = maxDelay;
    this.jitter = jitter;
  }

  /**
   * Exponential backoff: {@code initial × multiplier^(attempt-1)}, capped at {@code max}, with no
   * jitter until {@link #withJitter(double)} adds it.
   *
   * @param initial the delay after the first failure, &gt; 0
   * @param multiplier the growth per failure, &ge; 1
   * @param max the cap, &ge; initial
   * @return the policy
   */
  public static RetryPolicy exponential(Duration initial, double multiplier, Duration max) {
    requirePositive("initialDelay", initial);
    requirePositive("maxDelay", max);
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(
          "multiplier must be a finite number >= 1, but was " + multiplier);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "maxDelay must be >= initialDelay (" + initial + "), but was " + max);
    }
    return new RetryPolicy(initial, multiplier, max, 0.0);
  }

  /**
   * The same delay after every failure.
   *
   * @param delay the delay, &gt; 0
   * @return the policy
   */
  public static RetryPolicy fixed(Duration delay) {
    requirePositive("delay", delay);
    return new RetryPolicy(delay, 1.0, delay, 0.0);
  }

  /**
   * A copy that spreads each delay randomly by up to {@code ±factor} of it, so that many messages
   * that failed together do not all come back at the same instant.
   *
   * @param factor between 0 (none) and 1
   * @return the new policy
   */
  public RetryPolicy withJitter(double factor) {
    if (!(factor >= 0.0 && factor <= 1.0)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1, but was " + factor);
    }
    return new RetryPolicy(initialDelay, multiplier, maxDelay, factor);
  }

  /**
   * The delay before the next attempt.
   *
   * @param failedAttempts how many attempts have failed, including the one just made (&ge; 1)
   * @return the delay, never more than the cap plus jitter and never negative
   */
  public Duration delayAfter(int failedAttempts) {
    if (failedAttempts < 1) {
      throw new IllegalArgumentException("failedAttempts must be >= 1, but was " + failedAttempts);
    }
    double base = initialDelay.toNanos() * Math.pow(multiplier, failedAttempts - 1.0);
    double capped = Math.min(base, maxDelay.toNanos());
    if (jitter > 0) {
      capped += capped * jitter * (ThreadLocalRandom.current().nextDouble() * 2 - 1);
    }
    return Duration.ofNanos(Math.max(0L, (long) capped));
  }

  /**
   * The delay after the first failure.
   *
   * @return the initial delay
   */
  public Duration initialDelay() {
    return initialDelay;
  }

  /**
   * The growth factor per failure.
   *
   * @return 1 for a fixed policy
   */
  public double multiplier() {
    return multiplier;
  }

  /**
   * The cap of the delay before jitter.
   *
   * @return the maximum delay
   */
  public Duration maxDelay() {
    return maxDelay;
  }

  /**
   * The random spread of each delay.
   *
   * @return between 0 and 1
   */
  public double jitter() {
    return jitter;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RetryPolicy that
        && initialDelay.equals(that.initialDelay)
        && Double.compare(multiplier, that.multiplier) == 0
        && maxDelay.equals(that.maxDelay)
        && Double.compare(jitter, that.jitter) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(initialDelay, multiplier, maxDelay, jitter);
  }

  @Override
  public String toString() {
    return "RetryPolicy[initialDelay="
        + initialDelay
        + ", multiplier="
        + multiplier
        + ", maxDelay="
        + maxDelay
        + ", jitter="
        + jitter
        + ']';
  }

  static void requirePositive(String field, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + value);
    }
    requireAtMostLongest(field, value);
  }

  static void requireAtMostLongest(String field, Duration value) {
    if (value.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(
          field + " must be at most " + LONGEST + " (100 years), but was " + value);
    }
  }
}
