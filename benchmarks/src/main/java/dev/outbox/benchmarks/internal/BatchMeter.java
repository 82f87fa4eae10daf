package dev.outbox.benchmarks.internal;

import java.time.Duration;
import java.util.Locale;

/** Sums the processor's batches ({@code batchCompleted}): how many, how large, where time went. */
final class BatchMeter {

  private long batches;
  private long messages;
  private long claims;
  private long claimNanos;
  private long publishNanos;
  private long recordNanos;

  synchronized void add(int size, Duration claim, Duration publish, Duration record) {
    batches++;
    messages += size;
    if (!claim.isZero()) {
      claims++;
    }
    claimNanos += claim.toNanos();
    publishNanos += publish.toNanos();
    recordNanos += record.toNanos();
  }

  synchronized void reset() {
    batches = 0;
    messages = 0;
    claims = 0;
    claimNanos = 0;
    publishNanos = 0;
    recordNanos = 0;
  }

  /** Per batch means, and the share of the processor thread's time they take. */
  synchronized String describe(double seconds) {
    double n = Math.max(1, batches);
    return String.format(
        Locale.ROOT,
        "%d batches (%d claimed), %.1f msgs/batch; per batch: claim %.2f ms, publish %.2f ms,"
            + " record %.2f ms; busy %.0f%% of the time",
        batches,
        claims,
        messages / n,
        claimNanos / 1e6 / n,
        publishNanos / 1e6 / n,
        recordNanos / 1e6 / n,
        (claimNanos + publishNanos + recordNanos) / 1e7 / seconds);
  }
}
