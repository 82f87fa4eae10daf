package dev.outbox.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A UTC clock that stands still until a test moves it. Thread-safe. */
public final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;

  /**
   * A clock showing a given instant.
   *
   * @param start the instant
   */
  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far
   * @return the new instant
   */
  public Instant advance(Duration duration) {
    return now.updateAndGet(instant -> instant.plus(duration));
  }

  /**
   * Sets the clock.
   *
   * @param instant the new instant
   */
  public void set(Instant instant) {
    now.set(instant);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("MutableClock is always UTC");
  }
}
