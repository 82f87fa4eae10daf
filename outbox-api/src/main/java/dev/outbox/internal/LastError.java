package dev.outbox.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** The last failure an outbox instance saw, for its health snapshot. */
final class LastError {

  record Entry(String error, Instant at) {}

  private final AtomicReference<Entry> last = new AtomicReference<>();
  private final Clock clock;

  LastError(Clock clock) {
    this.clock = clock;
  }

  void set(String error) {
    last.set(new Entry(error, clock.instant()));
  }

  void set(Throwable error) {
    set(OutcomeRules.describe(error));
  }

  Entry get() {
    return last.get();
  }
}
