package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxPosition;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.rabbitmq.inbox.AppliedCheck;
import dev.outbox.rabbitmq.inbox.BrokerOutages;
import dev.outbox.rabbitmq.inbox.BrokerOutages.Planned;
import dev.outbox.rabbitmq.inbox.InboxConsumer;
import dev.outbox.rabbitmq.inbox.KillTables;
import dev.outbox.rabbitmq.inbox.OutboxWriter;
import dev.outbox.rabbitmq.testing.RabbitMqTestBroker;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.kill.BoundedWriter;
import dev.outbox.testkit.kill.JvmFleet;
import dev.outbox.testkit.kill.KillSchedule;
import dev.outbox.testkit.kill.Periodic;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kill test of the inbox (issue 29), end to end: writer, outbox, RabbitMQ, inbox consumer, with
 * faults on both sides. The test JVM commits a bounded load through {@link JdbcOutbox} on
 * PostgreSQL and runs the outbox processor, which publishes with {@link RabbitMqEventPublisher}
 * through a {@link TcpProxy} that the test cuts three times for a few seconds (the outbox must
 * retry, never dead-letter). Two consumer JVMs, separate OS processes ({@link InboxConsumer} in a
 * {@link JvmFleet}), consume the one durable queue with manual acks and a prefetch of {@value
 * #PREFETCH}, applying every delivery through the {@link Inbox} (GAP: nack with requeue after a
 * short pause); every few seconds one that is handling messages is killed with SIGKILL and a
 * successor starts, and the broker redelivers what the victim had not acknowledged.
 *
 * <p>Afterwards, from the tables ({@link AppliedCheck}): every committed message applied exactly
 * once (each aggregate's {@code applied_count} is its number of messages, each (aggregate, seq) is
 * in the applied log once) and in seq order per aggregate (by the log's insertion order); each of
 * the inbox's positions at its aggregate's last seq with no gap open; no dead letters. The report
 * gives the kills, the outages, the duplicates the consumers saw (redeliveries after a kill,
 * republished messages after a cut), the gaps and the duration. Each consumer's output is in {@code
 * target/inbox-kill-it/}.
 *
 * <p>Everything is the run's own: a PostgreSQL schema (dropped afterwards), a durable exchange and
 * queue with random names (deleted afterwards). The shared servers are never stopped or
 * reconfigured. A run takes about 35 seconds on two loaded cores (writing for 30 of them); the
 * waits are bounded so that a failing run ends within two minutes too.
 */
@Timeout(120)
class RabbitMqInboxKillIT {

  private static final Logger LOG = LoggerFactory.getLogger(RabbitMqInboxKillIT.class);

  private static final String AGGREGATE_TYPE = "InboxKill";
  private static final int CONSUMERS = 2;
  private static final int PREFETCH = 20;
  private static final long NACK_PAUSE_MILLIS = 20;
  private static final int AGGREGATES = 100;
  private static final int WRITER_THREADS = 3;
  private static final int MAX_EVENTS_PER_AGGREGATE_AND_TRANSACTION = 4;
  private static final int MAX_EVENTS = 4_000;
  private static final int EVENTS_PER_SECOND = 150;

  /**
   * A kill every 3 to 5 s for 30 s, of a consumer that has been consuming for a second (and is
   * handling messages): the defaults but for the window. A successor takes seconds to boot on a
   * loaded 2-core machine: with fewer than four kills at the window's end, killing goes on (while
   * the survivors drain) for up to 15 s longer.
   */
  private static final KillSchedule KILLS =
      KillSchedule.builder()
          .window(Duration.ofSeconds(30))
          .extension(Duration.ofSeconds(15))
          .build();

  // "Handling now": applied a message within this many milliseconds, by the database clock.
  private static final long HANDLING_WITHIN_MILLIS = 500;
  private static final List<Planned> OUTAGES =
      List.of(
          new Planned(Duration.ofSeconds(4), Duration.ofSeconds(3)),
          new Planned(Duration.ofSeconds(13), Duration.ofMillis(2_500)),
          new Planned(Duration.ofSeconds(21), Duration.ofSeconds(3)));
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(40);

  /** The drain ends by then at the latest, so that the checks and the report fit in two minutes. */
  private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(100);

  private static final Path LOGS = Path.of("target", "inbox-kill-it");

  @Test
  void consumersKilledWithSigkillApplyEveryMessageOnceInOrderWhileThePublisherLosesTheBroker()
      throws Exception {
    RequiredServer.assumePostgres();
    long started = System.nanoTime();
    byte[] run = new byte[4];
    new SecureRandom().nextBytes(run);
    String runId = HexFormat.of().formatHex(run);
    KillTables tables = new KillTables("inbox_kill_" + runId);
    String exchange = RabbitMqTestBroker.name("inbox-kill");
    String queue = RabbitMqTestBroker.name("inbox-kill-q");
    try (RabbitMqTestBroker broker = RabbitMqTestBroker.connect();
        HikariDataSource dataSource = KillTables.pool("inbox-kill-test", 8)) {
      try {
        broker.declareExchange(exchange, true);
        broker.declareQueue(queue, true, exchange, AGGREGATE_TYPE + ".#");
        List<String> aggregateIds = new ArrayList<>();
        for (int a = 0; a < AGGREGATES; a++) {
          aggregateIds.add(String.format("agg-%s-%03d", runId, a));
        }
        try (Connection connection = dataSource.getConnection()) {
          tables.create(connection, aggregateIds);
        }
        run(new Run(broker, dataSource, tables, exchange, queue, aggregateIds, runId, started));
      } finally {
        // Clean up even after the timeout interrupted the test: the pool refuses an interrupted
        // thread a connection.
        boolean interrupted = Thread.interrupted();
        broker.delete(exchange, queue);
        try (Connection connection = dataSource.getConnection()) {
          tables.drop(connection);
        }
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** What one run works on. */
  private record Run(
      RabbitMqTestBroker broker,
      HikariDataSource dataSource,
      KillTables tables,
      String exchange,
      String queue,
      List<String> aggregateIds,
      String runId,
      long started) {

    /** The inbox's source: the consumer's name in its positions. */
    String source() {
      return "inbox-kill-" + runId;
    }

    /** The inbox on the run's tables. */
    InboxOptions.Builder inboxOptions() {
      return InboxOptions.builder()
          .source(source())
          .positionsTable(tables.positionsTable())
          .receivedIdsTable(tables.receivedIdsTable());
    }
  }

  private void run(Run run) throws Exception {
    KillTables tables = run.tables();
    OutboxOptions outboxOptions =
        OutboxOptions.builder()
            .outboxTable(tables.outboxTable())
            .deadLetterTable(tables.deadLetterTable())
            .createSchema(true)
            .serializer(OutboxWriter.SERIALIZER)
            .instanceId("inbox-kill-" + run.runId())
            .pollInterval(Duration.ofMillis(100))
            .retryPolicy(RetryPolicy.fixed(Duration.ofMillis(200)))
            .maxAttempts(1_000)
            .publishTimeout(Duration.ofSeconds(5))
            .build();
    JdbcOutbox jdbcOutbox = JdbcOutbox.create(run.dataSource(), outboxOptions);
    Inbox.create(run.dataSource(), run.inboxOptions().createSchema(true).build()).close();
    List<String> consumerArgs =
        List.of(
            run.queue(),
            tables.schema(),
            run.source(),
            String.valueOf(PREFETCH),
            String.valueOf(NACK_PAUSE_MILLIS));
    try (TcpProxy proxy = new TcpProxy(RabbitMqTestBroker.HOST, RabbitMqTestBroker.PORT);
        JvmFleet fleet =
            JvmFleet.builder(InboxConsumer.class)
                .size(CONSUMERS)
                .logDir(LOGS)
                .name("c")
                .maxHeapMegabytes(128)
                .readyLine(InboxConsumer.READY)
                .arguments(consumerArgs)
                .build()) {
      fleet.startAll();
      fleet.awaitAllReady(STARTUP_TIMEOUT);
      RabbitMqEventPublisher publisher =
          new RabbitMqEventPublisher(
              RabbitMqTestBroker.options(run.exchange())
                  .port(proxy.port())
                  .connectionTimeout(Duration.ofSeconds(2))
                  .build());
      try (Outbox outbox = jdbcOutbox.outbox(publisher)) {
        outbox.start();
        LOG.info(
            "Inbox kill test: tables in schema {}, queue {}, {} consumers up in {} ms; logs in {}",
            tables.schema(),
            run.queue(),
            CONSUMERS,
            millisSince(run.started()),
            LOGS.toAbsolutePath());
        loadKillAndDrain(run, jdbcOutbox, outboxOptions, proxy, fleet);
      }
    }
  }

  private void loadKillAndDrain(
      Run run, JdbcOutbox jdbcOutbox, OutboxOptions outboxOptions, TcpProxy proxy, JvmFleet fleet)
      throws Exception {
    long setUp = System.nanoTime();
    BoundedWriter writer =
        OutboxWriter.create(
            jdbcOutbox,
            AGGREGATE_TYPE,
            run.aggregateIds(),
            WRITER_THREADS,
            MAX_EVENTS_PER_AGGREGATE_AND_TRANSACTION);
    BrokerOutages outages = new BrokerOutages(proxy, OUTAGES);
    long windowEnd = KILLS.windowEnd(setUp);
    writer.start(MAX_EVENTS, EVENTS_PER_SECOND, windowEnd);
    outages.start();
    Periodic progress =
        new Periodic(Duration.ofSeconds(5), () -> progress(run, writer, fleet, outages));
    KILLS.run(
        fleet,
        windowEnd,
        instanceId -> recentlyApplying(run).contains(instanceId),
        () -> writer.failure() != null,
        progress,
        kill ->
            LOG.info(
                "SIGKILL {} (pid {}) while handling: started in {} ms, killed after {} ms consuming;"
                    + " {} events written, {} applied",
                kill.instanceId(),
                kill.pid(),
                kill.startedIn().toMillis(),
                kill.readyFor().toMillis(),
                writer.total(),
                applied(run)));

    writer.await(Duration.ofSeconds(30));
    boolean outagesDone = outages.awaitDone(Duration.ofSeconds(15));
    outages.stop(Duration.ofSeconds(5));
    long writing = System.nanoTime();
    int written = writer.total();
    LOG.info(
        "Inbox kill test: writing stopped: {} events in {} transactions over {} aggregates; {}"
            + " kills; {} applied",
        written,
        writer.transactions(),
        writer.eventsPerAggregate().size(),
        fleet.kills().size(),
        applied(run));

    // Drain: the outbox publishes the rest, the consumers running now apply it.
    long drainEnd =
        Math.min(
            System.nanoTime() + DRAIN_TIMEOUT.toNanos(), run.started() + DRAIN_DEADLINE.toNanos());
    boolean drained =
        await(
            () ->
                applied(run) >= written
                    && pendingHeads(run, outboxOptions) == 0
                    && run.broker().messageCount(run.queue()) == 0,
            drainEnd,
            progress);
    long drainedAt = System.nanoTime();
    List<String> stubborn = fleet.stopGracefully(Duration.ofSeconds(10));
    Tally tally = tally(run, fleet);
    report(run, writer, fleet, outages, tally, new Timeline(setUp, writing, drainedAt));

    assertThat(fleet.deaths()).as("consumers that exited without being killed").isEmpty();
    // What was applied first: it names the messages when the drain did not end.
    assertAppliedExactlyOnceInOrder(tally, written, writer.eventsPerAggregate());
    assertThat(drained)
        .as(
            "drained within %s: %d of %d applied, %d heads pending, %d messages in the queue",
            DRAIN_TIMEOUT,
            tally.check().applied(),
            written,
            pendingHeads(run, outboxOptions),
            tally.leftInQueue())
        .isTrue();
    assertThat(fleet.kills().size())
        .as("SIGKILLs of consumers handling messages (the test must not pass without kills)")
        .isGreaterThanOrEqualTo(KILLS.minKills());
    assertThat(fleet.kills())
        .as("every kill a SIGKILL (exit value 128 + 9)")
        .allMatch(kill -> kill.exitValue() == 137);
    assertThat(outagesDone)
        .as("every planned broker outage happened: %s", outages.outages())
        .isTrue();
    assertThat(stubborn).as("consumers that did not close on SIGTERM").isEmpty();
  }

  /**
   * What the run left: the tables compared, the inbox's positions, the consumers' outcome lines,
   * the dead letters and what is still in the queue once the consumers stopped.
   */
  private record Tally(
      AppliedCheck check,
      List<InboxPosition> positions,
      List<InboxPosition> openGaps,
      List<String> outcomes,
      List<String> outOfOrderSeen,
      long deadLetters,
      long leftInQueue) {

    long outcomes(String outcome) {
      return outcomes.stream()
          .filter(line -> line.startsWith(InboxConsumer.OUTCOME + outcome))
          .count();
    }
  }

  private static Tally tally(Run run, JvmFleet fleet) throws SQLException {
    long leftInQueue = run.broker().messageCount(run.queue());
    try (Connection connection = run.dataSource().getConnection();
        Inbox inbox = Inbox.create(run.dataSource(), run.inboxOptions().build())) {
      return new Tally(
          AppliedCheck.run(connection, run.tables(), AGGREGATE_TYPE),
          inbox.positions(AGGREGATES * 2),
          inbox.gaps(20),
          fleet.lines(InboxConsumer.OUTCOME),
          fleet.lines(InboxConsumer.OUT_OF_ORDER),
          count(connection, "SELECT count(*) FROM " + run.tables().deadLetterTable()),
          leftInQueue);
    }
  }

  /**
   * Every committed message applied once, in seq order per aggregate; each inbox position at its
   * aggregate's last seq, no gap left open; no dead letter.
   */
  private static void assertAppliedExactlyOnceInOrder(
      Tally tally, int written, Map<String, Integer> eventsPerAggregate) {
    AppliedCheck check = tally.check();
    assertThat(check.committedMessages())
        .as("outbox rows against events committed")
        .isEqualTo(written);
    assertThat(check.notNumberedFromOne()).as("aggregates whose seqs are not 1..n").isEmpty();
    assertThat(first(check.neverApplied()))
        .as("committed messages never applied (%d)", check.neverApplied().size())
        .isEmpty();
    assertThat(first(check.appliedTwice()))
        .as("messages applied more than once (%d)", check.appliedTwice().size())
        .isEmpty();
    assertThat(first(check.countMismatches()))
        .as(
            "aggregates whose applied_count or last_seq is not what was committed (%d)",
            check.countMismatches().size())
        .isEmpty();
    assertThat(first(check.outOfOrder()))
        .as("applied out of seq order (%d)", check.outOfOrder().size())
        .isEmpty();
    assertThat(first(check.unknown()))
        .as("applied log rows matching no committed message")
        .isEmpty();
    assertThat(first(tally.outOfOrderSeen())).as("out-of-order effects the handlers saw").isEmpty();
    assertThat(check.applied()).as("applied_count summed over the aggregates").isEqualTo(written);
    assertThat(tally.positions())
        .as("the inbox's positions (aggregate id, applied seq): each at its aggregate's last seq")
        .extracting(InboxPosition::aggregateId, InboxPosition::appliedSeq)
        .containsExactlyInAnyOrderElementsOf(
            eventsPerAggregate.entrySet().stream()
                .map(e -> tuple(e.getKey(), (long) e.getValue()))
                .toList());
    assertThat(tally.openGaps()).as("inbox positions with a gap still open").isEmpty();
    assertThat(tally.deadLetters())
        .as("dead letters (the outbox must retry through outages)")
        .isZero();
  }

  /**
   * When the set-up, the writing and the drain ended, by {@link System#nanoTime()}.
   *
   * @param setUp when the consumers were up and the outbox started
   * @param writing when the writers stopped
   * @param drained when the drain ended
   */
  private record Timeline(long setUp, long writing, long drained) {}

  /** Logs the result. */
  private void report(
      Run run,
      BoundedWriter writer,
      JvmFleet fleet,
      BrokerOutages outages,
      Tally tally,
      Timeline times) {
    AppliedCheck check = tally.check();
    long redeliveredDuplicates =
        tally.outcomes().stream()
            .filter(l -> l.startsWith("OUTCOME DUPLICATE") && l.contains("redelivered true"))
            .count();
    LOG.info(
        "Inbox kill test result: {} events ({} outbox rows) of {} aggregates written in {} ms;"
            + " {} SIGKILLs, {} restarts, {} broker outages {}; {} applied ({} log rows, {} of"
            + " them from deliveries flagged redelivered; by consumer {}); duplicates seen {} ({}"
            + " flagged redelivered by the broker, the rest republished by the outbox); gaps seen"
            + " {}; inbox failures {}; {} dead letters; {} messages left in the queue after the"
            + " consumers stopped; drained {} ms after writing stopped; {} writer transactions"
            + " retried; total {} ms",
        writer.total(),
        check.committedMessages(),
        check.committedAggregates(),
        millisBetween(times.setUp(), times.writing()),
        fleet.kills().size(),
        fleet.restarts(),
        outages.outages().size(),
        outages.outages(),
        check.applied(),
        check.logRows(),
        check.logRowsRedelivered(),
        check.appliedByConsumer(),
        tally.outcomes("DUPLICATE"),
        redeliveredDuplicates,
        tally.outcomes("GAP"),
        tally.outcomes("FAILED"),
        tally.deadLetters(),
        tally.leftInQueue(),
        millisBetween(times.writing(), times.drained()),
        writer.rolledBack().size(),
        millisSince(run.started()));
    fleet.reportKills(LOG, "consuming");
    fleet.deaths().forEach(death -> LOG.warn("  consumer died on its own: {}", death));
    tally.outcomes().stream()
        .filter(l -> l.startsWith("OUTCOME FAILED"))
        .limit(10)
        .forEach(line -> LOG.warn("  {}", line));
    writer.rolledBack().stream().limit(10).forEach(f -> LOG.warn("  writer retried: {}", f));
    fleet.reportWarnings(LOG, "consumer", 20);
  }

  /** Restarts the consumers that died on their own, and logs the state of the run. */
  private static void progress(
      Run run, BoundedWriter writer, JvmFleet fleet, BrokerOutages outages) {
    fleet.restartTheDead().forEach(death -> LOG.warn("Consumer died on its own: {}", death));
    LOG.info(
        "  at {} ms (load {}): {} written, {} applied, {} in the queue, {} kills, {} outages{};"
            + " {}",
        millisSince(run.started()),
        String.format("%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()),
        writer.total(),
        applied(run),
        run.broker().messageCount(run.queue()),
        fleet.kills().size(),
        outages.outages().size(),
        outages.outages().size() < OUTAGES.size() ? "" : " (all)",
        fleet);
  }

  /** Waits for a condition until a {@link System#nanoTime()} deadline, logging progress. */
  private static boolean await(BooleanSupplier condition, long deadline, Runnable progress)
      throws InterruptedException {
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(Math.max(1, Math.min(200, (deadline - System.nanoTime()) / 1_000_000)));
      progress.run();
    }
    return true;
  }

  private static long applied(Run run) {
    try (Connection connection = run.dataSource().getConnection()) {
      return AppliedCheck.appliedSoFar(connection, run.tables());
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read " + run.tables().effects(), e);
    }
  }

  private static Set<String> recentlyApplying(Run run) {
    try (Connection connection = run.dataSource().getConnection()) {
      return AppliedCheck.recentlyApplying(connection, run.tables(), HANDLING_WITHIN_MILLIS);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read " + run.tables().appliedLog(), e);
    }
  }

  private static long pendingHeads(Run run, OutboxOptions options) {
    try (Connection connection = run.dataSource().getConnection()) {
      return count(
          connection,
          "SELECT count(*) FROM " + options.headTable() + " WHERE delivered_seq < write_seq");
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read " + options.headTable(), e);
    }
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      result.next();
      return result.getLong(1);
    }
  }

  private static List<String> first(List<String> problems) {
    return problems.subList(0, Math.min(20, problems.size()));
  }

  private static long millisSince(long start) {
    return millisBetween(start, System.nanoTime());
  }

  private static long millisBetween(long from, long to) {
    return (to - from) / 1_000_000;
  }
}
