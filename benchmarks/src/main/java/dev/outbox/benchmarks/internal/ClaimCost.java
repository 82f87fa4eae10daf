package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cost of one claim (the processor's claim transaction, as {@link
 * OutboxListener#batchCompleted} times it) with many published rows kept in the table. The rows are
 * published by the processor itself, as in production, and the table is not vacuumed by hand; the
 * claims run on the calling thread ({@link Outbox#runOnce()}) with a publisher that acknowledges at
 * once, so that no broker is timed.
 */
public final class ClaimCost {

  /** Claims per measured run. */
  public static final int CLAIMS_PER_RUN = 10;

  private static final int AGGREGATES = 1_000;
  private static final int BATCH = 100;

  private final BenchDatabase db;

  /**
   * A claim meter.
   *
   * @param db the database
   */
  public ClaimCost(BenchDatabase db) {
    this.db = db;
  }

  /**
   * Writes a backlog and publishes all of it through the processor, on this thread.
   *
   * @param events how many rows to leave published
   */
  public void publishBacklog(int events) {
    db.truncate();
    Backlog.pending(db, "bench-claim", events, AGGREGATES);
    try (Outbox outbox = outbox(new OutboxListener() {})) {
      while (outbox.runOnce() > 0) {
        // drains
      }
    }
  }

  /**
   * Adds pending rows and times claims of a full batch each.
   *
   * @param warmUp claims not counted
   * @param runs measured runs of {@value #CLAIMS_PER_RUN} claims
   * @return the mean claim time of each run, in milliseconds
   */
  public List<Double> measure(int warmUp, int runs) {
    int claims = warmUp + runs * CLAIMS_PER_RUN;
    Backlog.pending(db, "bench-claim", claims * BATCH, AGGREGATES);
    List<Double> times = new ArrayList<>();
    OutboxListener listener =
        new OutboxListener() {
          @Override
          public void batchCompleted(
              int size, int published, Duration claim, Duration publish, Duration record) {
            times.add(claim.toNanos() / 1e6);
          }
        };
    try (Outbox outbox = outbox(listener)) {
      for (int i = 0; i < claims; i++) {
        outbox.runOnce();
      }
    }
    List<Double> means = new ArrayList<>();
    for (int r = 0; r < runs; r++) {
      int from = warmUp + r * CLAIMS_PER_RUN;
      means.add(
          times.subList(from, from + CLAIMS_PER_RUN).stream()
              .mapToDouble(Double::doubleValue)
              .average()
              .orElseThrow());
    }
    return means;
  }

  private Outbox outbox(OutboxListener listener) {
    return HibernateOutbox.create(
        db.emf(), new InstantAcks(), db.options().toBuilder().listener(listener).build());
  }

  /** Acknowledges every message at once. */
  private static final class InstantAcks implements EventPublisher {
    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
      List<PublishResult> results = new ArrayList<>(messages.size());
      messages.forEach(m -> results.add(PublishResult.published(m.id(), "nowhere")));
      return results;
    }

    @Override
    public void close() {}
  }
}
