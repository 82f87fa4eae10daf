package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How soon a backlog is delivered once a broker comes back from an outage longer than the whole
 * retry budget: a committed backlog ({@link Backlog#pending}), the publisher reaching the broker
 * through a {@link TcpProxy} ({@link ProxiedBroker}), which goes {@linkplain TcpProxy#down() down}
 * before the outbox starts (the publisher is created with it up: NATS connects and checks its
 * stream at creation). The options are the defaults but for {@value #MAX_ATTEMPTS} attempts and a
 * fixed {@value #RETRY_MS} ms retry, so the budget is well under the cut. After the cut the proxy
 * goes {@linkplain TcpProxy#up() up}; measured: the seconds from then until fewer than {@value
 * #CAUGHT_UP} messages are pending (the sum of {@code write_seq - delivered_seq} over the heads,
 * read every {@value #SAMPLE_MS} ms), capped. Also noted: the highest {@code attempts} of any head
 * just before the return (a broker outage counts none), the {@code publish} calls during the cut
 * (the processor's probes, and the batches that found the broker gone), the time from the return to
 * the first acknowledgement, the attempts the outbox counted over the whole run ({@link
 * OutboxListener#failed}: a broker outage counts none), and the dead letters once the backlog is
 * delivered (a broker outage makes none). The pending count after the return is printed every 250
 * ms.
 */
public final class OutageRecovery {

  /** Fewer pending messages than this is recovered. */
  public static final int CAUGHT_UP = 100;

  /** The retry budget's attempts. */
  public static final int MAX_ATTEMPTS = 3;

  /** The retry budget's fixed delay, in milliseconds. */
  public static final int RETRY_MS = 200;

  /** How long the recovery may take before it counts as failed. */
  public static final Duration CAP = Duration.ofSeconds(60);

  private static final int SAMPLE_MS = 50;

  /** How often the pending count after the return is printed. */
  private static final long TRACE_NANOS = 250_000_000L;

  /** How long the rest of the backlog may take after the measurement, before the dead letters. */
  private static final Duration DRAIN_REST = Duration.ofSeconds(60);

  private final BenchDatabase db;

  /**
   * What one outage measured.
   *
   * @param seconds from the return until fewer than {@value #CAUGHT_UP} were pending, or the cap
   * @param recovered whether that happened within the cap
   * @param pendingAtReturn messages pending just before the return
   * @param pendingAtEnd messages pending at the last sample (fewer than {@value #CAUGHT_UP} when
   *     recovered)
   * @param maxAttemptsAtReturn the highest {@code attempts} of any head just before the return
   * @param callsDuringCut {@code publish} calls started during the cut
   * @param firstAckSeconds from the return until the first acknowledgement; NaN when none came
   * @param attemptsCounted failed attempts the outbox counted from its start to its close ({@link
   *     OutboxListener#failed})
   * @param deadLetters dead letters after the backlog was delivered (or the wait for it ended)
   * @param unavailableSince what {@link OutboxHealth#brokerUnavailableSince()} said just before the
   *     return, {@code null} when the outbox did not see the outage
   * @param reason what {@link OutboxHealth#brokerUnavailableReason()} said then
   */
  public record Result(
      double seconds,
      boolean recovered,
      long pendingAtReturn,
      long pendingAtEnd,
      long maxAttemptsAtReturn,
      long callsDuringCut,
      double firstAckSeconds,
      long attemptsCounted,
      long deadLetters,
      Instant unavailableSince,
      String reason) {

    /**
     * How fast the backlog went once the broker took messages again.
     *
     * @return messages delivered per second from the first acknowledgement to the last sample; NaN
     *     when no message was acknowledged
     */
    public double drainRate() {
      return (pendingAtReturn - pendingAtEnd) / (seconds - firstAckSeconds);
    }
  }

  /**
   * Outages on the benchmarks' database.
   *
   * @param db the database
   */
  public OutageRecovery(BenchDatabase db) {
    this.db = db;
  }

  /**
   * Writes the backlog, cuts the broker, starts the outbox, brings the broker back after {@code
   * cut} and measures; then waits for the rest of the backlog and counts the dead letters. The
   * proxy is up again when this returns, whatever happened.
   *
   * @param broker the broker and its proxy
   * @param events the backlog
   * @param aggregates over how many aggregates
   * @param cut how long the broker stays away, from the cut to its return
   * @param cap how long the recovery may take
   * @return the measurement
   */
  public Result run(ProxiedBroker broker, int events, int aggregates, Duration cut, Duration cap) {
    db.truncate();
    broker.purge();
    Backlog.pending(db, broker.aggregateType(), events, aggregates);
    AtomicLong attemptsCounted = new AtomicLong();
    OutboxOptions options =
        db.options().toBuilder()
            .maxAttempts(MAX_ATTEMPTS)
            .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(RETRY_MS)))
            .listener(
                new OutboxListener() {
                  @Override
                  public void failed(
                      OutboxMessage message,
                      int attempt,
                      PublishException error,
                      Instant nextAttemptAt) {
                    if (attemptsCounted.incrementAndGet() == 1) {
                      System.out.println("    an attempt was counted: " + error.getMessage());
                    }
                  }
                })
            .build();
    TcpProxy proxy = broker.proxy();
    TimingPublisher publisher = new TimingPublisher(broker.publisherThroughProxy());
    try (Outbox outbox = HibernateOutbox.create(db.emf(), publisher, options)) {
      proxy.down();
      long down = System.nanoTime();
      outbox.start();
      LockSupport.parkNanos(cut.toNanos() - (System.nanoTime() - down));
      OutboxHealth health = outbox.health();
      long pendingAtReturn = db.pending();
      long attempts = db.count("SELECT coalesce(max(attempts), 0) FROM " + BenchDatabase.HEADS);
      long calls = publisher.calls();
      proxy.up();
      long up = System.nanoTime();
      long deadline = up + cap.toNanos();
      long now = up;
      boolean recovered = false;
      long pending = pendingAtReturn;
      StringJoiner trace = new StringJoiner(", ");
      long nextTrace = up;
      while (now < deadline) {
        LockSupport.parkNanos(SAMPLE_MS * 1_000_000L);
        pending = db.pending();
        now = System.nanoTime();
        if (now >= nextTrace) {
          trace.add(String.format(Locale.ROOT, "%.2f s %d", (now - up) / 1e9, pending));
          nextTrace += TRACE_NANOS;
        }
        if (pending < CAUGHT_UP) {
          recovered = true;
          break;
        }
      }
      System.out.println("    pending after the return: " + trace);
      double seconds = recovered ? (now - up) / 1e9 : cap.toNanos() / 1e9;
      long firstAck = publisher.firstAckAt();
      awaitRest();
      outbox.close();
      return new Result(
          seconds,
          recovered,
          pendingAtReturn,
          pending,
          attempts,
          calls,
          firstAck == TimingPublisher.NONE ? Double.NaN : (firstAck - up) / 1e9,
          attemptsCounted.get(),
          db.count("SELECT count(*) FROM " + BenchDatabase.DEAD_LETTERS),
          health.brokerUnavailableSince(),
          health.brokerUnavailableReason());
    } finally {
      proxy.up();
      broker.purge();
    }
  }

  /** Waits, unmeasured, until nothing is pending, for at most {@link #DRAIN_REST}. */
  private void awaitRest() {
    long deadline = System.nanoTime() + DRAIN_REST.toNanos();
    while (db.pending() > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(SAMPLE_MS * 1_000_000L);
    }
  }

  /**
   * The result in one line.
   *
   * @param result a measurement
   * @return for example {@code recovered 2.34 s after the return (first ack after 0.53 s, then
   *     11023 messages/s); at the return 20000 pending, ...}
   */
  public static String describe(Result result) {
    return String.format(
        Locale.ROOT,
        "%s %.2f s after the return (first ack after %.2f s, then %.0f messages/s); at the return"
            + " %d pending, highest attempts %d, %d publish calls during the cut, health"
            + " unavailable since %s (%s); %d attempts counted, %d dead letters",
        result.recovered() ? "recovered" : "NOT recovered, cap",
        result.seconds(),
        result.firstAckSeconds(),
        result.drainRate(),
        result.pendingAtReturn(),
        result.maxAttemptsAtReturn(),
        result.callsDuringCut(),
        result.unavailableSince(),
        result.reason(),
        result.attemptsCounted(),
        result.deadLetters());
  }
}
