package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.spi.EventPublisher;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Drains a committed backlog through the processor with the default options (only the table names
 * differ) and measures events per second from {@code start()} to the last acknowledgement, with the
 * claim, publish and record time of every batch ({@link OutboxListener#batchCompleted}) to say what
 * bounds it.
 */
public final class Relay {

  private static final Duration STALL = Duration.ofSeconds(60);

  private final BenchDatabase db;

  /**
   * A relay on the benchmarks' database.
   *
   * @param db the database
   */
  public Relay(BenchDatabase db) {
    this.db = db;
  }

  /**
   * What one drain measured.
   *
   * @param events how many were published
   * @param seconds how long it took
   * @param batches how many batches
   * @param claimMs total claim time
   * @param publishMs total publish time
   * @param recordMs total record time
   * @param failures failed attempts
   */
  public record Run(
      long events,
      double seconds,
      long batches,
      double claimMs,
      double publishMs,
      double recordMs,
      long failures) {

    /**
     * The throughput.
     *
     * @return events per second
     */
    public double rate() {
      return events / seconds;
    }

    /**
     * Where the processor's time went, per batch.
     *
     * @return for example {@code 1000 batches of 100: claim 2.10 ms, publish 6.30 ms, record 1.90
     *     ms}
     */
    public String profile() {
      double n = Math.max(1, batches);
      return String.format(
          Locale.ROOT,
          "%d batches of %.0f: claim %.2f ms, publish %.2f ms, record %.2f ms, other %.2f ms",
          batches,
          events / n,
          claimMs / n,
          publishMs / n,
          recordMs / n,
          Math.max(0, seconds * 1000 - claimMs - publishMs - recordMs) / n);
    }
  }

  /**
   * Writes a backlog and drains it.
   *
   * @param publishers a new publisher per run (the outbox closes it)
   * @param aggregateType routes the events
   * @param events the backlog's size
   * @param aggregates over how many aggregates
   * @return the measurement
   */
  public Run drain(
      Supplier<EventPublisher> publishers, String aggregateType, int events, int aggregates) {
    db.truncate();
    Backlog.pending(db, aggregateType, events, aggregates);
    return drainWritten(publishers.get(), events);
  }

  /**
   * Drains what the outbox table holds.
   *
   * @param publisher the publisher, closed at the end
   * @param events how many pending events to wait for
   * @return the measurement
   */
  public Run drainWritten(EventPublisher publisher, long events) {
    Meter meter = new Meter();
    OutboxOptions options = db.options().toBuilder().listener(meter).build();
    long start;
    long end;
    try (Outbox outbox = HibernateOutbox.create(db.emf(), publisher, options)) {
      start = System.nanoTime();
      outbox.start();
      end = meter.await(events);
    }
    return new Run(
        meter.published.get(),
        (end - start) / 1e9,
        meter.batches.get(),
        meter.claimNanos.get() / 1e6,
        meter.publishNanos.get() / 1e6,
        meter.recordNanos.get() / 1e6,
        meter.failures.get());
  }

  /** Counts what the processor did. */
  private static final class Meter implements OutboxListener {
    final AtomicLong published = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    final AtomicLong batches = new AtomicLong();
    final AtomicLong claimNanos = new AtomicLong();
    final AtomicLong publishNanos = new AtomicLong();
    final AtomicLong recordNanos = new AtomicLong();

    @Override
    public void published(OutboxMessage message, String destination, Instant publishedAt) {
      published.incrementAndGet();
    }

    @Override
    public void failed(
        OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {
      if (failures.incrementAndGet() == 1) {
        System.out.println("  first publish failure: " + error.getMessage());
      }
    }

    @Override
    public void batchCompleted(
        int size, int published, Duration claim, Duration publish, Duration record) {
      batches.incrementAndGet();
      claimNanos.addAndGet(claim.toNanos());
      publishNanos.addAndGet(publish.toNanos());
      recordNanos.addAndGet(record.toNanos());
    }

    /** Waits until {@code events} were published; fails after a minute without progress. */
    long await(long events) {
      long seen = -1;
      long progressAt = System.nanoTime();
      while (published.get() < events) {
        long now = System.nanoTime();
        if (published.get() != seen) {
          seen = published.get();
          progressAt = now;
        } else if (now - progressAt > STALL.toNanos()) {
          throw new IllegalStateException(
              "The drain stalled at "
                  + seen
                  + " of "
                  + events
                  + " events ("
                  + failures
                  + " failures)");
        }
        sleep();
      }
      return System.nanoTime();
    }

    private static void sleep() {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
  }
}
