package dev.outbox.samples;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.hibernate.OutboxModule;
import dev.outbox.samples.brokers.Broker;
import dev.outbox.samples.brokers.Brokers;
import jakarta.persistence.EntityManagerFactory;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;

/** One run of the demo: set up, place orders, wait for the consumer, tear down. */
final class Demo {

  private static final Duration STALL = Duration.ofSeconds(30);

  private final DemoArguments arguments;
  private final PrintStream out;
  private final String runId;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  Demo(DemoArguments arguments, PrintStream out) {
    this.arguments = arguments;
    this.out = out;
    byte[] random = new byte[3];
    new SecureRandom().nextBytes(random);
    this.runId = HexFormat.of().formatHex(random);
  }

  /**
   * The outbox as the sample tunes it: tables of its own, created at start; a short poll interval
   * (commits wake the processor anyway); quick retries for a demo.
   *
   * @return the options
   */
  static OutboxOptions outboxOptions() {
    return OutboxOptions.builder()
        .outboxTable("sample_outbox_messages")
        .deadLetterTable("sample_outbox_dead_letters")
        .createSchema(true)
        .pollInterval(Duration.ofMillis(200))
        .batchSize(250)
        .maxAttempts(50)
        .retryPolicy(
            RetryPolicy.exponential(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2))
                .withJitter(0.2))
        .publishTimeout(Duration.ofSeconds(10))
        .leaseDuration(Duration.ofSeconds(30))
        .retention(Duration.ofMinutes(10))
        .shutdownTimeout(Duration.ofSeconds(5))
        .build();
  }

  Summary run() {
    try {
      Database database =
          arguments.jdbcUrl() == null ? null : add(Database.connect(arguments.jdbcUrl()));
      Broker broker = add(Brokers.open(arguments, runId));
      if (database == null) {
        database = add(Database.embedded());
      }
      out.println("database: " + database.description());
      out.println("broker:   " + broker.description());
      Injector injector = wire(database, broker);
      DeliveryTracker tracker = new DeliveryTracker();
      broker.startConsumer(tracker);
      add(injector.getInstance(Outbox.class)).start();
      return placeOrdersAndWait(injector.getInstance(OrderService.class), tracker);
    } finally {
      closeAll();
    }
  }

  /**
   * The wiring an application does: options in code, the outbox module, the persistence unit built
   * with the module's properties, one broker module.
   */
  private Injector wire(Database database, Broker broker) {
    OutboxOptions options = outboxOptions();
    database.dropOutboxTables(options);
    OutboxModule outboxModule = new OutboxModule(options);
    EntityManagerFactory emf =
        add(
            database.createEntityManagerFactory(
                outboxModule.persistenceProperties(), arguments.threads() + 4));
    return Guice.createInjector(
        outboxModule,
        broker.publisherModule(),
        binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
  }

  private Summary placeOrdersAndWait(OrderService service, DeliveryTracker tracker) {
    long expected = OrderWorkload.expectedEvents(arguments.orders());
    OrderWorkload workload =
        new OrderWorkload(service, runId, arguments.orders(), arguments.threads());
    out.printf(
        "placing %d orders (%d events) from %d threads%n",
        arguments.orders(), expected, arguments.threads());
    long start = System.nanoTime();
    workload.start();
    try {
      waitForDelivery(workload, tracker, expected, start);
      out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
      return tracker.summary(workload.isDone() ? workload.committedEvents() : expected);
    } finally {
      workload.stop();
    }
  }

  /**
   * Waits until the writers are done and every event arrived, or nothing arrived for {@link
   * #STALL}; prints progress about once a second.
   */
  private void waitForDelivery(
      OrderWorkload workload, DeliveryTracker tracker, long expected, long start) {
    long nextReport = start;
    long lastReceived = -1;
    long lastChange = start;
    while (true) {
      boolean written = workload.isDone();
      long received = tracker.received();
      long now = System.nanoTime();
      if (received != lastReceived) {
        lastReceived = received;
        lastChange = now;
      }
      if (written && received >= expected || now - lastChange > STALL.toNanos()) {
        return;
      }
      if (now >= nextReport) {
        out.printf(
            "[%3ds] orders placed %d/%d, events committed %d, received %d%n",
            (now - start) / 1_000_000_000,
            workload.placed(),
            arguments.orders(),
            workload.committedEvents(),
            received);
        nextReport += 1_000_000_000L;
      }
      sleep();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(50);
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
