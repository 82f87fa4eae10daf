package dev.outbox.benchmarks.internal;

import java.time.Duration;

/**
 * How much each benchmark does: the full run, or the quick smoke run of CI.
 *
 * @param quick whether this is the quick run
 * @param backlog events per relay and ceiling run (100,000)
 * @param warmUpBacklog events of the warm-up run
 * @param aggregates aggregates a backlog is spread over
 * @param writeTransactions transactions of each kind per write-overhead run
 * @param latencyRate events per second of the latency run
 * @param latencyWarmUp writing before the latency is measured
 * @param latencyLength each latency run
 * @param claimSmall published rows kept for {@code claim_ms_10k_retained}
 * @param claimLarge published rows kept for {@code claim_ms_1m_retained} and drained with a small
 *     heap
 * @param forkDrain whether the large drain runs in a child JVM with {@value HeapDrain#HEAP}
 * @param runs measured runs, after one warm-up
 */
public record Scale(
    boolean quick,
    int backlog,
    int warmUpBacklog,
    int aggregates,
    int writeTransactions,
    int latencyRate,
    Duration latencyWarmUp,
    Duration latencyLength,
    int claimSmall,
    int claimLarge,
    boolean forkDrain,
    int runs) {

  /** The full run: the counts. */
  public static final Scale FULL =
      new Scale(
          false,
          100_000,
          10_000,
          1_000,
          2_000,
          2_000,
          Duration.ofSeconds(20),
          Duration.ofSeconds(30),
          10_000,
          1_000_000,
          true,
          3);

  /** The quick run: the same harness with small counts, in-process, under two minutes. */
  public static final Scale QUICK =
      new Scale(
          true,
          5_000,
          1_000,
          1_000,
          60,
          2_000,
          Duration.ofSeconds(1),
          Duration.ofSeconds(5),
          10_000,
          20_000,
          false,
          3);
}
