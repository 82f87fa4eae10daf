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
 * @param leasedBacklog pending messages (over {@value LeasedClaim#AGGREGATES} aggregates) behind
 *     the claim with every head leased ({@code claim_ms_all_heads_leased}: 30,000)
 * @param leasedClaims timed claims of each kind there, after a fifth as many untimed
 * @param fewAggregates the aggregates of the relay with few of them (10)
 * @param manyAggregates the aggregates of the relay with many of them (100,000)
 * @param catchUpRate events per second of the catch-up's writer (600)
 * @param catchUpHead how long the writer writes before the processors start (30 s)
 * @param catchUpCap how long the catch-up may take before it counts as failed (120 s)
 * @param outageBacklog pending messages when a broker is cut ({@code recovery_s_after_outage_*}:
 *     20,000)
 * @param outageAggregates over how many aggregates (1,000)
 * @param outageCut how long the broker stays cut (10 s)
 * @param outageWarmUpCut the cut of the warm-up run, on a tenth of the backlog ({@link
 *     Duration#ZERO}: no warm-up)
 * @param outageRuns measured outage runs per broker (3)
 * @param inboxRound messages applied with and without the inbox in each round of {@code
 *     inbox_overhead_ratio} (20,000)
 * @param inboxMessages messages applied through the inbox for {@code inbox_rows_after_1m_messages}
 *     (1,000,000)
 * @param inboxCap how long that run may take before it stops short of its count (600 s)
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
    int runs,
    int leasedBacklog,
    int leasedClaims,
    int fewAggregates,
    int manyAggregates,
    int catchUpRate,
    Duration catchUpHead,
    Duration catchUpCap,
    int outageBacklog,
    int outageAggregates,
    Duration outageCut,
    Duration outageWarmUpCut,
    int outageRuns,
    int inboxRound,
    int inboxMessages,
    Duration inboxCap) {

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
          3,
          30_000,
          25,
          10,
          100_000,
          600,
          Duration.ofSeconds(30),
          Duration.ofSeconds(120),
          20_000,
          1_000,
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          3,
          20_000,
          1_000_000,
          Duration.ofSeconds(600));

  /**
   * The quick run: the same harness with small counts, under two minutes; in-process except for the
   * catch-up's two processor JVMs. The outage runs once per broker, without a warm-up; the inbox
   * applies 50,000 messages instead of 1,000,000.
   */
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
          3,
          3_000,
          10,
          10,
          5_000,
          600,
          Duration.ofSeconds(5),
          Duration.ofSeconds(30),
          2_000,
          100,
          Duration.ofSeconds(5),
          Duration.ZERO,
          1,
          5_000,
          50_000,
          Duration.ofSeconds(120));
}
