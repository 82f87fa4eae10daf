package dev.outbox.benchmarks.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.kafka.KafkaEventPublisher;
import dev.outbox.kafka.KafkaPublisherOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether two processors catch up with a backlog while writers go on: a paced writer in this JVM
 * commits one event per Hibernate transaction at a steady rate over {@value #AGGREGATES}
 * aggregates, with no processor in this JVM (so nothing goes the fast path); after a while two
 * processors start, each in a child JVM of its own ({@link Outbox} with its own {@code instanceId},
 * default options otherwise, publishing to this JVM's Kafka). Measured: the seconds from their
 * start until fewer than {@value #CAUGHT_UP} messages are pending (the sum of {@code write_seq -
 * delivered_seq} over the heads, read every {@value #SAMPLE_MS} ms), while the writer still runs.
 * The wait is capped; a run that does not catch up reports the cap.
 */
public final class CatchUp {

  /** The argument that makes {@code Benchmarks} one of the processors. */
  public static final String CHILD = "--child-processor";

  /** The aggregates the writer writes to. */
  public static final int AGGREGATES = 200;

  /** Fewer pending messages than this is caught up. */
  public static final int CAUGHT_UP = 100;

  private static final int SAMPLE_MS = 100;
  private static final int WRITERS = 4;
  private static final int PROCESSORS = 2;
  private static final String READY = "ready";
  private static final String GO = "go";
  private static final String STOP = "stop";
  private static final long BOOT_SECONDS = 180;

  private final BenchDatabase db;
  private final String aggregateType;
  private final List<String> ids = new ArrayList<>();

  /**
   * What one catch-up measured.
   *
   * @param seconds from the processors' start until fewer than {@value #CAUGHT_UP} were pending, or
   *     the cap
   * @param caughtUp whether that happened within the cap
   * @param backlog messages pending when the processors started
   * @param writeRate events per second the writer committed while the processors ran
   * @param deliveryRate messages per second delivered while the processors ran until caught up
   */
  public record Result(
      double seconds, boolean caughtUp, long backlog, double writeRate, double deliveryRate) {}

  /**
   * Creates the writer's aggregates (after emptying the outbox tables).
   *
   * @param db the database
   * @param aggregateType a Kafka topic that exists
   */
  public CatchUp(BenchDatabase db, String aggregateType) {
    this.db = db;
    this.aggregateType = aggregateType;
    db.truncate();
    db.emf()
        .inTransaction(
            session -> {
              for (int i = 0; i < AGGREGATES; i++) {
                String id = "catchup-" + i;
                session.persist(new BenchAggregate(id, aggregateType));
                ids.add(id);
              }
            });
  }

  /**
   * Starts the processors' JVMs (they wait), writes for {@code head}, starts the processors, and
   * waits until they caught up or {@code cap} passed; then stops the writer and the processors.
   *
   * @param mainClass the class whose {@code main} handles {@value #CHILD}
   * @param bootstrapServers this JVM's Kafka
   * @param rate the writer's events per second
   * @param head how long the writer writes before the processors start
   * @param cap how long the processors may take
   * @return the measurement
   */
  public Result run(
      String mainClass, String bootstrapServers, int rate, Duration head, Duration cap) {
    List<ChildJvm> processors = new ArrayList<>();
    Writer writer = new Writer(rate);
    try {
      for (int p = 1; p <= PROCESSORS; p++) {
        processors.add(
            ChildJvm.start(
                "processor-" + p,
                List.of("-Xmx512m", "-XX:+ExitOnOutOfMemoryError"),
                mainClass,
                READY,
                CHILD,
                bootstrapServers,
                "bench-catchup-" + p));
      }
      for (ChildJvm processor : processors) {
        if (!processor.awaitLine(BOOT_SECONDS)) {
          throw new IllegalStateException(
              "A processor JVM was not ready within " + BOOT_SECONDS + " s");
        }
      }
      System.out.printf(
          "    writing %d events/s over %d aggregates for %d s before the processors start%n",
          rate, AGGREGATES, head.toSeconds());
      writer.start();
      LockSupport.parkNanos(head.toNanos());
      writer.check();
      long backlog = db.pending();
      long writtenAtStart = writer.written.get();
      long start = System.nanoTime();
      processors.forEach(processor -> processor.send(GO));
      System.out.printf(
          "    processors started with %d pending (%d written in %d s)%n",
          backlog, writtenAtStart, head.toSeconds());
      long deadline = start + cap.toNanos();
      long nextReport = start + 5_000_000_000L;
      long pending = backlog;
      boolean caughtUp = false;
      long now = start;
      while (now < deadline) {
        LockSupport.parkNanos(SAMPLE_MS * 1_000_000L);
        writer.check();
        pending = db.pending();
        now = System.nanoTime();
        if (pending < CAUGHT_UP) {
          caughtUp = true;
          break;
        }
        if (now >= nextReport) {
          System.out.printf(
              Locale.ROOT,
              "      %.0f s: %d pending, %d written%n",
              (now - start) / 1e9,
              pending,
              writer.written.get());
          nextReport += 5_000_000_000L;
        }
      }
      double seconds = caughtUp ? (now - start) / 1e9 : cap.toNanos() / 1e9;
      double ran = (now - start) / 1e9;
      long writtenSince = writer.written.get() - writtenAtStart;
      Result result =
          new Result(
              seconds,
              caughtUp,
              backlog,
              writtenSince / ran,
              (backlog + writtenSince - pending) / ran);
      System.out.printf(
          Locale.ROOT,
          "    %s after %.1f s: %d pending; the writer committed %.0f events/s meanwhile, the"
              + " processors delivered %.0f messages/s%n",
          caughtUp ? "caught up" : "NOT caught up",
          ran,
          pending,
          result.writeRate(),
          result.deliveryRate());
      return result;
    } finally {
      writer.stop();
      for (ChildJvm processor : processors) {
        try {
          processor.send(STOP);
        } catch (IllegalStateException e) {
          // already gone
        }
      }
      for (ChildJvm processor : processors) {
        int exit = processor.await(60);
        if (exit != 0) {
          System.out.println("    a processor JVM exited with " + exit);
        }
        processor.close();
      }
    }
  }

  /** The paced writer: {@value #WRITERS} threads, each on aggregates of its own. */
  private final class Writer {
    private final long interval;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong written = new AtomicLong();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    Writer(int rate) {
      this.interval = 1_000_000_000L * WRITERS / rate;
    }

    void start() {
      long start = System.nanoTime();
      for (int t = 0; t < WRITERS; t++) {
        int thread = t;
        Thread writer = new Thread(() -> write(thread, start), "catchup-writer-" + t);
        writer.setDaemon(true);
        threads.add(writer);
        writer.start();
      }
    }

    /** Thread {@code t} writes to aggregates t, t+W, t+2W, ... each event at its time. */
    private void write(int thread, long start) {
      long due = start + interval * thread / WRITERS;
      int share = ids.size() / WRITERS;
      try {
        for (long k = 0; running.get(); k++, due += interval) {
          long wait = due - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
          }
          String id = ids.get(thread + WRITERS * (int) (k % share));
          db.emf().inTransaction(session -> session.find(BenchAggregate.class, id).touch(1));
          written.incrementAndGet();
        }
      } catch (RuntimeException e) {
        failure.compareAndSet(null, e);
      }
    }

    /** Throws what stopped a writer thread, if one stopped. */
    void check() {
      if (failure.get() != null) {
        throw new IllegalStateException(
            "A catch-up writer failed: " + failure.get(), failure.get());
      }
    }

    void stop() {
      running.set(false);
      for (Thread thread : threads) {
        try {
          thread.join(10_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * One processor's JVM: creates its outbox, says {@value #READY}, starts it on {@value #GO},
   * closes it on {@value #STOP} (or when the parent's end of standard input closes), and prints
   * what it published.
   *
   * @param bootstrapServers the parent's Kafka
   * @param instanceId this processor's {@code instanceId}
   * @return the exit code
   */
  public static int processHere(String bootstrapServers, String instanceId) {
    AtomicLong published = new AtomicLong();
    BatchMeter batches = new BatchMeter();
    OutboxListener listener =
        new OutboxListener() {
          @Override
          public void published(OutboxMessage message, String destination, Instant publishedAt) {
            published.incrementAndGet();
          }

          @Override
          public void batchCompleted(
              int size, int ok, Duration claim, Duration publish, Duration record) {
            batches.add(size, claim, publish, record);
          }
        };
    BufferedReader parent =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (BenchDatabase db = BenchDatabase.open(false, 5)) {
      OutboxOptions options =
          db.options().toBuilder().instanceId(instanceId).listener(listener).build();
      KafkaEventPublisher publisher =
          new KafkaEventPublisher(
              KafkaPublisherOptions.builder().bootstrapServers(bootstrapServers).build());
      long started;
      try (Outbox outbox = HibernateOutbox.create(db.emf(), publisher, options)) {
        System.out.println(READY);
        System.out.flush();
        if (!GO.equals(parent.readLine())) {
          return 1;
        }
        started = System.nanoTime();
        outbox.start();
        String line;
        do {
          line = parent.readLine();
        } while (line != null && !line.equals(STOP));
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "%s published %d in %.1f s; %s%n",
          instanceId,
          published.get(),
          seconds,
          batches.describe(seconds));
      return 0;
    } catch (IOException | RuntimeException e) {
      System.out.println(instanceId + " failed: " + e);
      return 1;
    }
  }
}
