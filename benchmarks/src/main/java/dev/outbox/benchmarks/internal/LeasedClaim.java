package dev.outbox.benchmarks.internal;

import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cost of the processor's claim when much of the backlog is held by another processor: a
 * pending backlog over {@value #AGGREGATES} aggregates, some or all of whose heads are leased to a
 * processor that never records (an instance named {@value #OTHER}, with a lease of an hour), and
 * then the claim transaction of the benchmarks' own processor ({@link OutboxStore#claim}, batch
 * {@value #BATCH}, the default lease), timed around the call on this thread.
 *
 * <p>With every head leased the claim finds nothing, whatever waits behind the heads. With half of
 * them leased it takes the other half (one message each, as a claim of 100 over 100 free heads
 * does); each such claim is then released, untimed, so that every timed claim sees the same heads.
 */
public final class LeasedClaim {

  /** The aggregates of the backlog. */
  public static final int AGGREGATES = 200;

  /** The instance that holds the leased heads. */
  public static final String OTHER = "bench-other-processor";

  private static final int BATCH = 100;
  private static final Duration OTHER_LEASE = Duration.ofHours(1);
  private static final String TYPE = "bench-leased";

  private final BenchDatabase db;
  private final OutboxStore store;

  /**
   * A claim meter on the benchmarks' outbox tables.
   *
   * @param db the database
   */
  public LeasedClaim(BenchDatabase db) {
    this.db = db;
    this.store = HibernateOutbox.store(db.emf());
  }

  /**
   * Writes the backlog, leases {@code leased} of its heads to {@value #OTHER}, and times claims.
   *
   * @param events pending messages over {@value #AGGREGATES} aggregates
   * @param leased how many heads {@value #OTHER} holds
   * @param warmUp claims not timed
   * @param claims claims timed
   * @return each timed claim, in milliseconds
   */
  public List<Double> measure(int events, int leased, int warmUp, int claims) {
    db.truncate();
    Backlog.pending(db, TYPE, events, AGGREGATES);
    leaseToOther(leased);
    int free = AGGREGATES - leased;
    int expected = Math.min(free, BATCH);
    ClaimRequest request =
        new ClaimRequest(db.options().instanceId(), BATCH, db.options().leaseDuration(), true);
    List<Double> times = new ArrayList<>();
    long messages = 0;
    for (int i = 0; i < warmUp + claims; i++) {
      long start = System.nanoTime();
      List<LeasedHead> heads = store.claim(request);
      double ms = (System.nanoTime() - start) / 1e6;
      if (heads.size() != expected) {
        throw new IllegalStateException(
            "A claim with "
                + leased
                + " of "
                + AGGREGATES
                + " heads leased took "
                + heads.size()
                + " heads, expected "
                + expected
                + "; heads: "
                + db.pendingSummary());
      }
      if (i >= warmUp) {
        times.add(ms);
        messages += heads.stream().mapToInt(h -> h.messages().size()).sum();
      }
      release(heads);
    }
    System.out.printf(
        Locale.ROOT,
        "    %d of %d heads leased to %s, %d messages pending: %d claims took %s ms (min %.3f,"
            + " max %.3f), %.0f messages each%n",
        leased,
        AGGREGATES,
        OTHER,
        events,
        claims,
        format(Stats.median(times)),
        times.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
        times.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
        (double) messages / claims);
    return times;
  }

  /** Claims as {@value #OTHER} until it holds {@code heads} heads, and checks the table. */
  private void leaseToOther(int heads) {
    int held = 0;
    while (held < heads) {
      List<LeasedHead> claimed =
          store.claim(new ClaimRequest(OTHER, Math.min(BATCH, heads - held), OTHER_LEASE, true));
      if (claimed.isEmpty()) {
        break;
      }
      held += claimed.size();
    }
    long inTable =
        db.count(
            "SELECT count(*) FROM "
                + BenchDatabase.HEADS
                + " WHERE claimed_by = '"
                + OTHER
                + "' AND available_at > now() AND write_seq > delivered_seq");
    if (held != heads || inTable != heads) {
      throw new IllegalStateException(
          "Meant to lease "
              + heads
              + " heads to "
              + OTHER
              + ", claimed "
              + held
              + ", the table shows "
              + inTable);
    }
  }

  /** Gives the heads a timed claim took back, at the cursor they were claimed at. */
  private void release(List<LeasedHead> heads) {
    if (heads.isEmpty()) {
      return;
    }
    List<HeadOutcome> released = new ArrayList<>(heads.size());
    for (LeasedHead head : heads) {
      released.add(new HeadOutcome.Released(head.lease(), head.messages().get(0).seq() - 1));
    }
    store.record(released);
  }

  private static String format(double ms) {
    return String.format(Locale.ROOT, "%.3f", ms);
  }
}
