package dev.outbox.testkit.kill;

import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * When a kill test kills: during a window, one process of a {@link JvmFleet} every random interval
 * (between {@link #minInterval()} and {@link #maxInterval()}), chosen among those that have been
 * ready for {@link #minReadyBeforeKill()}; while there were fewer than {@link #minKills()} kills at
 * the window's end, killing goes on for up to {@link #extension()} longer (successors boot slowly
 * on a loaded machine). An immutable value; {@link #run} carries it out.
 */
public final class KillSchedule {

  /** The default {@link #minInterval()}: three seconds. */
  public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(3);

  /** The default {@link #maxInterval()}: five seconds. */
  public static final Duration DEFAULT_MAX_INTERVAL = Duration.ofSeconds(5);

  /** The default {@link #minKills()}. */
  public static final int DEFAULT_MIN_KILLS = 4;

  /** The default {@link #minReadyBeforeKill()}: one second. */
  public static final Duration DEFAULT_MIN_READY_BEFORE_KILL = Duration.ofSeconds(1);

  /** The default {@link #tick()}: 200 ms. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(200);

  /** The default {@link #retryPause()}: 50 ms. */
  public static final Duration DEFAULT_RETRY_PAUSE = Duration.ofMillis(50);

  private final Duration window;
  private final Duration extension;
  private final Duration minInterval;
  private final Duration maxInterval;
  private final int minKills;
  private final Duration minReadyBeforeKill;
  private final Duration tick;
  private final Duration retryPause;

  private KillSchedule(Builder builder) {
    this.window = builder.window;
    this.extension = builder.extension;
    this.minInterval = builder.minInterval;
    this.maxInterval = builder.maxInterval;
    this.minKills = builder.minKills;
    this.minReadyBeforeKill = builder.minReadyBeforeKill;
    this.tick = builder.tick;
    this.retryPause = builder.retryPause;
  }

  /**
   * A schedule to build; the window is required.
   *
   * @return a builder with the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * How long processes are killed; no default.
   *
   * @return the window
   */
  public Duration window() {
    return window;
  }

  /**
   * How much longer killing goes on while there were fewer than {@link #minKills()}; default zero.
   *
   * @return the extension
   */
  public Duration extension() {
    return extension;
  }

  /**
   * The shortest pause before a kill; default {@link #DEFAULT_MIN_INTERVAL}.
   *
   * @return the pause
   */
  public Duration minInterval() {
    return minInterval;
  }

  /**
   * The longest pause before a kill; default {@link #DEFAULT_MAX_INTERVAL}.
   *
   * @return the pause
   */
  public Duration maxInterval() {
    return maxInterval;
  }

  /**
   * The kills a run needs, the test's bound; default {@value #DEFAULT_MIN_KILLS}.
   *
   * @return the count
   */
  public int minKills() {
    return minKills;
  }

  /**
   * How long a process must have been ready to be killed; default {@link
   * #DEFAULT_MIN_READY_BEFORE_KILL}.
   *
   * @return the time
   */
  public Duration minReadyBeforeKill() {
    return minReadyBeforeKill;
  }

  /**
   * How often, at most, {@link #run} calls its progress callback while it waits for the next kill;
   * default {@link #DEFAULT_TICK}.
   *
   * @return the time
   */
  public Duration tick() {
    return tick;
  }

  /**
   * The pause between two tries when no process may be killed yet; default {@link
   * #DEFAULT_RETRY_PAUSE}.
   *
   * @return the pause
   */
  public Duration retryPause() {
    return retryPause;
  }

  /**
   * When the window ends.
   *
   * @param start when it starts, by {@link System#nanoTime()}
   * @return {@code start + window}, by {@link System#nanoTime()}
   */
  public long windowEnd(long start) {
    return start + window.toNanos();
  }

  /**
   * Kills until the window ends (later while fewer than {@link #minKills()}) or {@code stop} says
   * so, and returns then. Before each kill it waits a random interval, calling {@code progress};
   * then it tries until a process qualifies or killing ends, calling {@code progress} after each
   * try.
   *
   * @param fleet the processes
   * @param windowEnd when the window ends, by {@link System#nanoTime()}, see {@link #windowEnd}
   * @param allowed whether the process of an instance id may be killed now, besides having been
   *     ready long enough
   * @param stop whether to stop before the next kill (a writer failed, for example)
   * @param progress called every {@link #tick()} at most while waiting, for progress lines
   * @param onKill called after each kill, for its report line
   */
  public void run(
      JvmFleet fleet,
      long windowEnd,
      Predicate<String> allowed,
      BooleanSupplier stop,
      Runnable progress,
      Consumer<JvmFleet.Kill> onKill)
      throws InterruptedException {
    long extendedEnd = windowEnd + extension.toNanos();
    long minPause = minInterval.toMillis();
    int spread = (int) (maxInterval.toMillis() - minPause);
    Random random = new Random();
    while (true) {
      long pause = minPause + random.nextInt(spread + 1);
      long killAt = System.nanoTime() + pause * 1_000_000;
      long killsEnd = fleet.kills().size() < minKills ? extendedEnd : windowEnd;
      if (killAt > killsEnd || stop.getAsBoolean()) {
        return;
      }
      while (System.nanoTime() < killAt) {
        Thread.sleep(
            Math.max(1, Math.min(tick.toMillis(), (killAt - System.nanoTime()) / 1_000_000)));
        progress.run();
      }
      // All may be starting after kills in a row, or not allowed now: wait for one that is.
      JvmFleet.Kill kill = null;
      while (kill == null && System.nanoTime() < killsEnd) {
        kill = fleet.killOneAndRestart(random, minReadyBeforeKill, allowed);
        if (kill == null) {
          Thread.sleep(retryPause.toMillis());
          progress.run();
        }
      }
      if (kill != null) {
        onKill.accept(kill);
      }
    }
  }

  @Override
  public String toString() {
    return "KillSchedule[window "
        + window
        + " (+ "
        + extension
        + " for at least "
        + minKills
        + " kills), every "
        + minInterval
        + " to "
        + maxInterval
        + ", after "
        + minReadyBeforeKill
        + " ready]";
  }

  /** Builds a {@link KillSchedule}; every setter validates its value. */
  public static final class Builder {
    private Duration window;
    private Duration extension = Duration.ZERO;
    private Duration minInterval = DEFAULT_MIN_INTERVAL;
    private Duration maxInterval = DEFAULT_MAX_INTERVAL;
    private int minKills = DEFAULT_MIN_KILLS;
    private Duration minReadyBeforeKill = DEFAULT_MIN_READY_BEFORE_KILL;
    private Duration tick = DEFAULT_TICK;
    private Duration retryPause = DEFAULT_RETRY_PAUSE;

    private Builder() {}

    /**
     * See {@link KillSchedule#window()}.
     *
     * @param window positive
     * @return this builder
     */
    public Builder window(Duration window) {
      this.window = positive("window", window);
      return this;
    }

    /**
     * See {@link KillSchedule#extension()}.
     *
     * @param extension zero or more
     * @return this builder
     */
    public Builder extension(Duration extension) {
      this.extension = notNegative("extension", extension);
      return this;
    }

    /**
     * The pause before each kill, drawn evenly to the millisecond; see {@link
     * KillSchedule#minInterval()}.
     *
     * @param min positive
     * @param max at least {@code min}
     * @return this builder
     */
    public Builder interval(Duration min, Duration max) {
      positive("minInterval", min);
      positive("maxInterval", max);
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException(
            "maxInterval must be >= minInterval (" + min + "), but was " + max);
      }
      this.minInterval = min;
      this.maxInterval = max;
      return this;
    }

    /**
     * See {@link KillSchedule#minKills()}.
     *
     * @param minKills zero or more
     * @return this builder
     */
    public Builder minKills(int minKills) {
      if (minKills < 0) {
        throw new IllegalArgumentException("minKills must be >= 0, but was " + minKills);
      }
      this.minKills = minKills;
      return this;
    }

    /**
     * See {@link KillSchedule#minReadyBeforeKill()}.
     *
     * @param minReadyBeforeKill zero or more
     * @return this builder
     */
    public Builder minReadyBeforeKill(Duration minReadyBeforeKill) {
      this.minReadyBeforeKill = notNegative("minReadyBeforeKill", minReadyBeforeKill);
      return this;
    }

    /**
     * See {@link KillSchedule#tick()}.
     *
     * @param tick positive
     * @return this builder
     */
    public Builder tick(Duration tick) {
      this.tick = positive("tick", tick);
      return this;
    }

    /**
     * See {@link KillSchedule#retryPause()}.
     *
     * @param retryPause positive
     * @return this builder
     */
    public Builder retryPause(Duration retryPause) {
      this.retryPause = positive("retryPause", retryPause);
      return this;
    }

    /**
     * The schedule.
     *
     * @return the schedule
     * @throws IllegalStateException when no window was set
     */
    public KillSchedule build() {
      if (window == null) {
        throw new IllegalStateException("window is required, but was not set");
      }
      return new KillSchedule(this);
    }

    private static Duration positive(String name, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, but was " + value);
      }
      return value;
    }

    private static Duration notNegative(String name, Duration value) {
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be >= 0, but was " + value);
      }
      return value;
    }
  }
}
