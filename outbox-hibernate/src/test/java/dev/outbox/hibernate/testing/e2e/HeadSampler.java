package dev.outbox.hibernate.testing.e2e;

import dev.outbox.Outbox;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples an outbox on a thread of its own every 100 ms, from {@link #start} to {@link #finish()}:
 * the highest {@code attempts} of any head ({@link E2eDatabase#maxAttempts()}), the dead letters,
 * and whether its health said the broker was unavailable. An attempt counted and reset while a
 * broker is away, or a moment's outage reported for a poison message, does not go unseen.
 */
public final class HeadSampler implements AutoCloseable {

  private static final long INTERVAL_MILLIS = 100;

  private final E2eDatabase db;
  private final Outbox outbox;
  private final AtomicInteger samples = new AtomicInteger();
  private final AtomicInteger outageReports = new AtomicInteger();
  private final AtomicLong maxAttempts = new AtomicLong();
  private final AtomicLong maxDeadLetters = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  private HeadSampler(E2eDatabase db, Outbox outbox) {
    this.db = db;
    this.outbox = outbox;
    this.thread = new Thread(this::run, "head-sampler");
    thread.setDaemon(true);
  }

  /**
   * Starts sampling.
   *
   * @param db the outbox's database
   * @param outbox the outbox, whose health is sampled
   * @return the running sampler
   */
  public static HeadSampler start(E2eDatabase db, Outbox outbox) {
    HeadSampler sampler = new HeadSampler(db, outbox);
    sampler.thread.start();
    return sampler;
  }

  /**
   * What the samples found.
   *
   * @param samples how many samples were taken
   * @param maxAttempts the highest {@code attempts} of any head in any sample
   * @param maxDeadLetters the most dead letters in any sample
   * @param outageReports how many samples found the health saying the broker was unavailable
   */
  public record Sample(int samples, long maxAttempts, long maxDeadLetters, int outageReports) {}

  /**
   * Stops sampling, after the sample under way.
   *
   * @return what the samples found
   * @throws InterruptedException when interrupted while waiting for the last sample
   */
  public Sample finish() throws InterruptedException {
    running = false;
    thread.join(5_000);
    return new Sample(samples.get(), maxAttempts.get(), maxDeadLetters.get(), outageReports.get());
  }

  /**
   * Stops sampling.
   *
   * @throws InterruptedException when interrupted while waiting for the last sample
   */
  @Override
  public void close() throws InterruptedException {
    finish();
  }

  private void run() {
    while (running) {
      maxAttempts.accumulateAndGet(db.maxAttempts(), Math::max);
      maxDeadLetters.accumulateAndGet(db.countDeadLetters(), Math::max);
      if (outbox.health().brokerUnavailableSince() != null) {
        outageReports.incrementAndGet();
      }
      samples.incrementAndGet();
      try {
        Thread.sleep(INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
