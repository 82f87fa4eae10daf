package dev.outbox.samples.payments;

import com.google.inject.Injector;
import dev.outbox.DeadLetterQuery;
import dev.outbox.DeadLetterService;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/** One run of the demo: set up, run the payments, wait for the consumer, clean up, tear down. */
final class Demo {

  private static final Duration STALL = Duration.ofSeconds(30);

  private final PaymentsArguments arguments;
  private final PrintStream out;
  private final PaymentTables tables;
  private final String runId;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  Demo(PaymentsArguments arguments, PaymentTables tables, PrintStream out) {
    this.arguments = arguments;
    this.tables = tables;
    this.out = out;
    byte[] random = new byte[3];
    new SecureRandom().nextBytes(random);
    this.runId = HexFormat.of().formatHex(random);
  }

  Summary run() {
    try {
      PaymentsDatabase database =
          add(PaymentsDatabase.open(arguments.jdbcUrl(), arguments.threads() + 2));
      PaymentEventsQueue queue =
          add(PaymentEventsQueue.open(arguments.amqpUri(), "jdbc-payments-" + runId));
      out.println("database: " + database.description());
      out.println("broker:   " + queue.description());
      DataSource dataSource = database.dataSource();
      recreateTables(dataSource);
      OutboxOptions options = PaymentsWiring.outboxOptions(tables).build();
      Injector injector =
          PaymentsWiring.injector(dataSource, tables, options, queue.publisherOptions());
      DeliveryTracker tracker = new DeliveryTracker();
      queue.consume(tracker);
      Outbox outbox = add(injector.getInstance(Outbox.class));
      outbox.start();
      PaymentWorkload workload =
          new PaymentWorkload(
              injector.getInstance(PaymentService.class),
              runId,
              arguments.payments(),
              arguments.threads());
      long expected = (long) arguments.payments() * PaymentWorkload.EVENTS_PER_PAYMENT;
      runAndWait(workload, tracker, expected);
      long committed = workload.isDone() ? workload.committedEvents() : expected;
      waitUntil(() -> outbox.health().pending() == 0);
      long cleaned = cleanUp(outbox);
      return new Summary(
          tracker.received(),
          committed,
          tracker.duplicates(),
          tracker.outOfOrder(),
          injector.getInstance(DeadLetterService.class).count(DeadLetterQuery.all()),
          workload.refusedCaptures(),
          cleaned,
          countRows(dataSource, options.outboxTable()));
    } catch (IOException e) {
      throw new SetupException("RabbitMQ refused the consumer: " + SetupException.describe(e));
    } finally {
      closeAll();
    }
  }

  private void recreateTables(DataSource dataSource) {
    try {
      tables.recreate(dataSource, PaymentWorkload.merchantIds());
    } catch (SQLException e) {
      throw new SetupException(
          "PostgreSQL refused to create the sample's tables "
              + tables.prefix()
              + "_*: "
              + SetupException.describe(e));
    }
  }

  private void runAndWait(PaymentWorkload workload, DeliveryTracker tracker, long expected) {
    out.printf(
        "running %d payments (%d events; every tenth capture is first refused by the database)"
            + " from %d threads%n",
        arguments.payments(), expected, arguments.threads());
    long start = System.nanoTime();
    workload.start();
    try {
      long nextReport = start + 1_000_000_000L;
      long lastReceived = -1;
      long lastChange = start;
      while (!(workload.isDone() && tracker.received() >= expected)) {
        long now = System.nanoTime();
        long received = tracker.received();
        if (received != lastReceived) {
          lastReceived = received;
          lastChange = now;
        } else if (now - lastChange > STALL.toNanos()) {
          break;
        }
        if (now >= nextReport) {
          out.printf(
              "[%3ds] events committed %d/%d, received %d%n",
              (now - start) / 1_000_000_000, workload.committedEvents(), expected, received);
          nextReport += 1_000_000_000L;
        }
        sleep(50);
      }
      out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
    } finally {
      workload.stop();
    }
  }

  /**
   * Runs the outbox's cleanup until it finds nothing more: with {@code retention(ZERO)} it deletes
   * every delivered row, then the heads with nothing left.
   */
  private long cleanUp(Outbox outbox) {
    long deleted = 0;
    for (int run = outbox.cleanUpOnce(); run > 0; run = outbox.cleanUpOnce()) {
      deleted += run;
    }
    return deleted;
  }

  /** Waits until the condition holds, for {@link #STALL} at most. */
  private static void waitUntil(BooleanSupplier condition) {
    long deadline = System.nanoTime() + STALL.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      sleep(200);
    }
  }

  private static long countRows(DataSource dataSource, String table) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot count the rows of " + table + ": " + e, e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private <T extends AutoCloseable> T add(T resource) {
    resources.push(resource);
    return resource;
  }

  private void closeAll() {
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        System.err.println("note: closing failed: " + SetupException.describe(e));
      }
    }
  }
}
