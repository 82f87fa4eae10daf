package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.hibernate.HibernateOutbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmarks of one event's path and of scale: write overhead, commit-to-ack latency, claim
 * cost with many published rows kept, and a large drain with a small heap.
 */
public final class PathSuite {

  /** Diagnostic rates: where the latency's knee is, and its floor without load. */
  private static final int[] LOWER_RATES = {1_000, 200};

  private final Scale scale;
  private final BenchDatabase db;
  private final KafkaBench kafka;
  private final Figures figures;
  private final String mainClass;

  /**
   * A suite.
   *
   * @param scale the counts
   * @param db PostgreSQL
   * @param kafka the broker in this JVM
   * @param figures where the figures go
   * @param mainClass the class whose {@code main} runs the child drain
   */
  public PathSuite(
      Scale scale, BenchDatabase db, KafkaBench kafka, Figures figures, String mainClass) {
    this.scale = scale;
    this.db = db;
    this.kafka = kafka;
    this.figures = figures;
    this.mainClass = mainClass;
  }

  /** Hibernate transactions with 1 and 10 events over the same without events. */
  public void writeOverhead() {
    db.truncate();
    WriteOverhead write = new WriteOverhead(db, KafkaBench.TOPIC);
    List<double[]> rounds = new ArrayList<>();
    try (Outbox outbox = HibernateOutbox.create(db.emf(), kafka.publisher(), db.options())) {
      outbox.start();
      System.out.println("  write overhead: warm-up");
      write.run(scale.writeTransactions());
      for (int r = 1; r <= scale.runs(); r++) {
        double[] micros = write.run(scale.writeTransactions());
        System.out.printf(
            "    run %d: %.0f us without events, %.0f us with 1, %.0f us with 10%n",
            r, micros[0], micros[1], micros[2]);
        rounds.add(micros);
      }
    }
    double[] stopped = write.run(scale.writeTransactions());
    System.out.printf(
        "    outbox stopped (no lease check, no processor): %.0f us, %.0f us, %.0f us%n",
        stopped[0], stopped[1], stopped[2]);
    figures.add(
        "write_tx_no_events_us",
        ThroughputSuite.median(rounds, r -> r[0]),
        "us",
        "",
        "PostgreSQL commit (fsync) + Hibernate load/update");
    figures.add(
        "write_overhead_ratio_1",
        ThroughputSuite.median(rounds, r -> r[1] / r[0]),
        "ratio",
        "<= 1.15",
        "see note");
    figures.add(
        "write_overhead_ratio_10",
        ThroughputSuite.median(rounds, r -> r[2] / r[0]),
        "ratio",
        "<= 1.5",
        "see note");
    String diagnostic = "diagnostic: one run with the outbox stopped";
    figures.add(
        "write_overhead_ratio_1_outbox_stopped", stopped[1] / stopped[0], "ratio", "", diagnostic);
    figures.add(
        "write_overhead_ratio_10_outbox_stopped", stopped[2] / stopped[0], "ratio", "", diagnostic);
  }

  /** Commit to Kafka acknowledgement at a steady rate. */
  public void latency() {
    db.truncate();
    Latency latency = new Latency(db, KafkaBench.TOPIC);
    System.out.printf(
        "  latency: %d events/s, warm-up %ds, %d runs of %ds%n",
        scale.latencyRate(),
        scale.latencyWarmUp().toSeconds(),
        scale.runs(),
        scale.latencyLength().toSeconds());
    List<Latency.Result> runs =
        latency.run(
            kafka.publisher(),
            scale.latencyRate(),
            scale.latencyWarmUp(),
            scale.runs(),
            scale.latencyLength());
    List<double[]> rounds = new ArrayList<>();
    runs.forEach(
        r -> rounds.add(new double[] {r.p50(), r.p99(), r.max(), r.flushP50(), r.flushP99()}));
    String bound = "commit returned -> adapter publish() returned acked";
    figures.add("latency_p50_ms", ThroughputSuite.median(rounds, r -> r[0]), "ms", "<= 1", bound);
    figures.add("latency_p99_ms", ThroughputSuite.median(rounds, r -> r[1]), "ms", "<= 3", bound);
    figures.add("latency_max_ms", ThroughputSuite.median(rounds, r -> r[2]), "ms", "", bound);
    String listener = "OutboxListener: publishedAt - createdAt (flush -> recorded)";
    figures.add(
        "latency_listener_p50_ms", ThroughputSuite.median(rounds, r -> r[3]), "ms", "", listener);
    figures.add(
        "latency_listener_p99_ms", ThroughputSuite.median(rounds, r -> r[4]), "ms", "", listener);
    for (int rate : LOWER_RATES) {
      latencyAt(latency, rate);
    }
  }

  /** One shorter run at a lower rate, as a diagnostic. */
  private void latencyAt(Latency latency, int rate) {
    System.out.println("  latency at " + rate + " events/s (diagnostic)");
    Latency.Result result =
        latency
            .run(
                kafka.publisher(),
                rate,
                Duration.ofSeconds(1),
                1,
                scale.latencyLength().dividedBy(3))
            .get(0);
    String diagnostic = "diagnostic: same at " + rate + " events/s, one run";
    figures.add("latency_p50_ms_at_" + rate + "_per_s", result.p50(), "ms", "", diagnostic);
    figures.add("latency_p99_ms_at_" + rate + "_per_s", result.p99(), "ms", "", diagnostic);
  }

  /** One claim with few and with many published rows kept, and the large drain in between. */
  public void claimsAndHeap() {
    ClaimCost claims = new ClaimCost(db);
    System.out.println("  claim cost: " + scale.claimSmall() + " published rows kept");
    claims.publishBacklog(scale.claimSmall());
    double small = Stats.median(claims.measure(5, scale.runs()));
    figures.add(
        "claim_ms_10k_retained", small, "ms", "", "scan + lock + lease of 100 rows, one commit");
    boolean drained = largeDrain();
    figures.add(
        "drain_1m_heap_256m",
        drained ? 1 : 0,
        "1 = drained",
        "1",
        scale.forkDrain()
            ? "child JVM -Xmx256m, " + scale.claimLarge() + " events to Kafka"
            : "quick: in-process, " + scale.claimLarge() + " events");
    System.out.println("  claim cost: " + scale.claimLarge() + " published rows kept");
    double large = Stats.median(claims.measure(5, scale.runs()));
    figures.add(
        "claim_ms_1m_retained",
        large,
        "ms",
        "<= 1.2 x 10k",
        String.format("%.2f x the 10k claim", large / small));
  }

  private boolean largeDrain() {
    System.out.println("  drain: writing a backlog of " + scale.claimLarge() + " events");
    HeapDrain.writeBacklog(db, scale.claimLarge());
    long start = System.nanoTime();
    boolean ok;
    if (scale.forkDrain()) {
      ok = HeapDrain.inChildJvm(mainClass, kafka.bootstrapServers(), scale.claimLarge(), 12);
    } else {
      Relay.Run run = new Relay(db).drainWritten(kafka.publisher(), scale.claimLarge());
      System.out.println("    in-process drain: " + run.profile());
      ok = true;
    }
    long pending =
        db.count("SELECT count(*) FROM " + BenchDatabase.OUTBOX + " WHERE status = 'PENDING'");
    System.out.printf(
        "    drain finished in %.1f s, %d rows still pending%n",
        (System.nanoTime() - start) / 1e9, pending);
    return ok && pending == 0;
  }
}
