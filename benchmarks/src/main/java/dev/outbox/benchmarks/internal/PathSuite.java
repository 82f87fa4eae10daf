package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.jdbc.JdbcOutbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmarks of one event's path and of scale: write overhead, commit-to-ack latency, claim
 * cost with many published rows kept and with heads held by another processor, and a large drain
 * with a small heap.
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

  /**
   * Hibernate transactions with 1 and 10 events over the same without events, then the same with
   * plain JDBC transactions and {@link JdbcOutbox}.
   */
  public void writeOverhead() {
    db.truncate();
    WriteOverhead write = WriteOverhead.hibernate(db, KafkaBench.TOPIC);
    List<double[]> rounds;
    try (Outbox outbox = HibernateOutbox.create(db.emf(), kafka.publisher(), db.options())) {
      outbox.start();
      rounds = rounds(write, "write overhead");
    }
    double[] stopped = write.run(scale.writeTransactions());
    System.out.printf(
        "    outbox stopped (no lease check, no processor): %.0f us, %.0f us, %.0f us%n",
        stopped[0], stopped[1], stopped[2]);
    addWriteFigures(rounds, "", "Hibernate load/update");
    String diagnostic = "diagnostic: one run with the outbox stopped";
    figures.add(
        "write_overhead_ratio_1_outbox_stopped", stopped[1] / stopped[0], "ratio", "", diagnostic);
    figures.add(
        "write_overhead_ratio_10_outbox_stopped", stopped[2] / stopped[0], "ratio", "", diagnostic);

    JdbcOutbox jdbc = JdbcOutbox.create(db.dataSource(), db.options());
    try (Outbox outbox = jdbc.outbox(kafka.publisher())) {
      outbox.start();
      rounds =
          rounds(write.jdbc(jdbc, KafkaBench.TOPIC), "write overhead, plain JDBC (JdbcOutbox)");
    }
    addWriteFigures(rounds, "_jdbc", "JDBC select/update");
  }

  /** A warm-up, then the measured rounds of a write measure, each printed. */
  private List<double[]> rounds(WriteOverhead write, String label) {
    System.out.println("  " + label + ": warm-up");
    write.run(scale.writeTransactions());
    List<double[]> rounds = new ArrayList<>();
    for (int r = 1; r <= scale.runs(); r++) {
      double[] micros = write.run(scale.writeTransactions());
      System.out.printf(
          "    run %d: %.0f us without events, %.0f us with 1, %.0f us with 10%n",
          r, micros[0], micros[1], micros[2]);
      rounds.add(micros);
    }
    return rounds;
  }

  /** The figures of a write measure: the transaction without events and the two ratios. */
  private void addWriteFigures(List<double[]> rounds, String suffix, String work) {
    figures.add(
        "write_tx_no_events_us" + suffix,
        ThroughputSuite.median(rounds, r -> r[0]),
        "us",
        "",
        "PostgreSQL commit (fsync) + " + work);
    String target1 = suffix.isEmpty() ? "<= 1.15" : "";
    String target10 = suffix.isEmpty() ? "<= 1.5" : "";
    figures.add(
        "write_overhead_ratio_1" + suffix,
        ThroughputSuite.median(rounds, r -> r[1] / r[0]),
        "ratio",
        target1,
        "see note");
    figures.add(
        "write_overhead_ratio_10" + suffix,
        ThroughputSuite.median(rounds, r -> r[2] / r[0]),
        "ratio",
        target10,
        "see note");
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
    for (int r = 0; r < runs.size(); r++) {
      String run = "run " + (r + 1) + " of " + runs.size() + "; " + bound;
      figures.add("latency_p50_ms_run_" + (r + 1), runs.get(r).p50(), "ms", "<= 1", run);
      figures.add("latency_p99_ms_run_" + (r + 1), runs.get(r).p99(), "ms", "<= 3", run);
    }
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

  /**
   * The processor's claim over a backlog whose heads another processor holds: all of them, and half
   * of them.
   */
  public void leasedClaims() {
    LeasedClaim claim = new LeasedClaim(db);
    int events = scale.leasedBacklog();
    int warmUp = Math.max(2, scale.leasedClaims() / 5);
    int aggregates = LeasedClaim.AGGREGATES;
    System.out.printf(
        "  claim with every head leased: %d pending messages over %d aggregates%n",
        events, aggregates);
    double all = Stats.median(claim.measure(events, aggregates, warmUp, scale.leasedClaims()));
    figures.add(
        "claim_ms_all_heads_leased",
        all,
        "ms",
        "<= 2",
        String.format(
            "median of %d claims of %d finding nothing: %,d pending over %d heads, all leased"
                + " to another instance",
            scale.leasedClaims(), 100, events, aggregates));
    System.out.println("  claim with half the heads leased");
    double half = Stats.median(claim.measure(events, aggregates / 2, warmUp, scale.leasedClaims()));
    figures.add(
        "claim_ms_half_heads_leased",
        half,
        "ms",
        "",
        String.format(
            "diagnostic: the same with %d of %d heads leased; takes 100 heads, 1 message each",
            aggregates / 2, aggregates));
  }

  /** Two processors, each in a JVM of its own, catching up with a backlog while writers go on. */
  public void catchUp() {
    CatchUp catchUp = new CatchUp(db, KafkaBench.TOPIC);
    System.out.printf(
        "  catch-up: %d events/s over %d aggregates, two processor JVMs after %d s, capped at %d"
            + " s%n",
        scale.catchUpRate(),
        CatchUp.AGGREGATES,
        scale.catchUpHead().toSeconds(),
        scale.catchUpCap().toSeconds());
    CatchUp.Result result =
        catchUp.run(
            mainClass,
            kafka.bootstrapServers(),
            scale.catchUpRate(),
            scale.catchUpHead(),
            scale.catchUpCap());
    figures.add(
        "catch_up_s",
        result.seconds(),
        "s",
        "<= 10",
        (result.caughtUp()
                ? ""
                : "FAILED, the cap: " + scale.catchUpCap().toSeconds() + " s without catching up; ")
            + String.format(
                "two processor JVMs start with %,d pending, writer at %d/s on; until < %d pending",
                result.backlog(), scale.catchUpRate(), CatchUp.CAUGHT_UP));
    String diagnostic = "diagnostic: the catch-up's";
    figures.add(
        "catch_up_backlog_at_start",
        result.backlog(),
        "messages",
        "",
        diagnostic + " backlog when the processors started");
    figures.add(
        "catch_up_write_events_per_s",
        result.writeRate(),
        "events/s",
        "",
        diagnostic + " writer while the processors ran");
    figures.add(
        "catch_up_delivered_events_per_s",
        result.deliveryRate(),
        "events/s",
        "",
        diagnostic + " two processors until caught up (or the cap)");
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
    long pending = db.pending();
    System.out.printf(
        "    drain finished in %.1f s, %d messages still pending%n",
        (System.nanoTime() - start) / 1e9, pending);
    return ok && pending == 0;
  }
}
