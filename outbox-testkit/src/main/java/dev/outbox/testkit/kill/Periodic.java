package dev.outbox.testkit.kill;

import java.time.Duration;
import java.util.Objects;

/**
 * An action run at most once a period, when asked: the progress line of a kill test, asked for by
 * every loop that waits. The first call runs it.
 */
public final class Periodic implements Runnable {

  private final long periodNanos;
  private final Runnable action;
  private long next = System.nanoTime();

  /**
   * An action, not run yet.
   *
   * @param period how long at least between two runs
   * @param action what to run
   */
  public Periodic(Duration period, Runnable action) {
    if (period == null || period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be > 0, but was " + period);
    }
    this.periodNanos = period.toNanos();
    this.action = Objects.requireNonNull(action, "action");
  }

  /** Runs the action when the period since its last run is over. */
  @Override
  public void run() {
    if (System.nanoTime() < next) {
      return;
    }
    next = System.nanoTime() + periodNanos;
    action.run();
  }
}
