package dev.outbox.samples;

import java.util.Locale;

/**
 * The demo's result.
 *
 * @param received distinct events the consumer got
 * @param expected events committed
 * @param duplicates messages received again with an id already seen
 * @param outOfOrder events of an order that did not follow the order's previous event
 * @param p50Millis median commit-to-receive latency
 * @param p99Millis 99th percentile of it
 */
public record Summary(
    long received,
    long expected,
    long duplicates,
    long outOfOrder,
    double p50Millis,
    double p99Millis) {

  /**
   * Whether the run passed: every event arrived and none out of order (duplicates are allowed:
   * delivery is at least once).
   *
   * @return {@code true} when nothing is missing and nothing is out of order
   */
  public boolean ok() {
    return received == expected && outOfOrder == 0;
  }

  /**
   * The one summary line.
   *
   * @return {@code summary: received 3200/3200 events, 0 duplicates, 0 out of order, latency p50
   *     4.1 ms p99 18.7 ms}
   */
  public String line() {
    return String.format(
        Locale.ROOT,
        "summary: received %d/%d events, %d duplicates, %d out of order, latency p50 %.1f ms p99"
            + " %.1f ms",
        received,
        expected,
        duplicates,
        outOfOrder,
        p50Millis,
        p99Millis);
  }
}
