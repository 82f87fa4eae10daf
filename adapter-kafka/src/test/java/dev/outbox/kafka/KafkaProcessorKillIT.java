package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.kafka.kill.KillableProcessor;
import dev.outbox.kafka.kill.RecordingConsumer;
import dev.outbox.kafka.kill.RecordingConsumer.Received;
import dev.outbox.kafka.kill.SteadyWriter;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.testkit.RequiredServer;
import dev.outbox.testkit.TestMessages;
import dev.outbox.testkit.e2e.DeliveryCheck;
import dev.outbox.testkit.kill.BoundedWriter;
import dev.outbox.testkit.kill.JvmFleet;
import dev.outbox.testkit.kill.KillSchedule;
import dev.outbox.testkit.kill.Periodic;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
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
 * Kill test (issue 16): processor JVMs, separate OS processes ({@link KillableProcessor}), are
 * killed with SIGKILL and restarted while the test JVM commits a bounded load through Hibernate on
 * PostgreSQL, and a consumer reads the Kafka topic from the beginning. Afterwards nothing may be
 * lost (every committed message id consumed at least once) and, per aggregate, the first delivery
 * of each message must come in seq order (what a consumer that de-duplicates on the message id
 * sees); duplicates are allowed and reported.
 *
 * <p>Shape: the test JVM runs the Kafka broker, the outbox tables ({@link E2eDatabase}), the
 * writers ({@link SteadyWriter}: 200 aggregates, four threads, at most 600 events a second) and the
 * consumer; two processor JVMs ({@link JvmFleet}) share the tables, with a short lease (4 s,
 * publish timeout 2 s) so that a killed processor's heads are taken over within seconds, and claims
 * of 50 heads so that both processors hold some. For 35 seconds ({@link #KILLS}) a processor that
 * has been running for a second is killed every three to five seconds and a successor starts in its
 * place (for up to 20 s longer, while the survivors drain, until there were four kills: successors
 * boot slowly on a loaded machine); then the survivors drain what is left, and are stopped with
 * SIGTERM, which must release every head. Each processor's output is in {@code target/kill-it/}. A
 * run takes about 50 seconds on two cores; the waits are bounded so that a failing run ends within
 * two minutes too.
 */
@Timeout(120)
class KafkaProcessorKillIT {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaProcessorKillIT.class);

  private static final int PARTITIONS = 6;
  private static final int PROCESSORS = 2;
  private static final int AGGREGATES = 200;
  private static final int WRITER_THREADS = 4;
  private static final int MAX_EVENTS_PER_AGGREGATE_AND_TRANSACTION = 5;
  private static final int MAX_EVENTS = 30_000;
  private static final int EVENTS_PER_SECOND = 600;

  /**
   * A kill every 3 to 5 s (the default) for 35 s, of a processor that has been running for a second
   * (the default). A successor takes 4-28 s to boot on a loaded 2-core machine: with fewer than
   * four kills (the default) at the window's end, killing goes on (while the survivors drain) for
   * up to 20 s longer.
   */
  private static final KillSchedule KILLS =
      KillSchedule.builder()
          .window(Duration.ofSeconds(35))
          .extension(Duration.ofSeconds(20))
          .tick(Duration.ofMillis(250))
          .retryPause(Duration.ofMillis(100))
          .build();

  private static final Duration LEASE = Duration.ofSeconds(4);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(45);

  /** The drain ends by then at the latest, so that the checks and the report fit in two minutes. */
  private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(100);

  private static final Path LOGS = Path.of("target", "kill-it");

  @Test
  void processorsKilledWithSigkillLoseNothingAndKeepOrderPerAggregate() throws Exception {
    RequiredServer.assumePostgres();
    long started = System.nanoTime();
    String topic = TestMessages.aggregateType("kill");
    byte[] run = new byte[3];
    new SecureRandom().nextBytes(run);
    String runId = HexFormat.of().formatHex(run);
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        E2eDatabase db = E2eDatabase.start("kill")) {
      kafka.createTopic(topic, PARTITIONS);
      kafka.createTopic(topic + "-warmup", 1);
      List<String> processorArgs =
          List.of(
              kafka.bootstrapServers(),
              db.options().outboxTable(),
              db.options().deadLetterTable(),
              String.valueOf(LEASE.toMillis()),
              String.valueOf(PUBLISH_TIMEOUT.toMillis()),
              topic + "-warmup");
      try (JvmFleet fleet =
              JvmFleet.builder(KillableProcessor.class)
                  .size(PROCESSORS)
                  .logDir(LOGS)
                  .name("p")
                  .instanceIdPrefix("kill-" + runId + "-")
                  .maxHeapMegabytes(256)
                  .readyLine(KillableProcessor.READY)
                  .arguments(processorArgs)
                  .build();
          RecordingConsumer consumer = new RecordingConsumer(kafka.bootstrapServers(), topic)) {
        fleet.startAll();
        fleet.awaitAllReady(STARTUP_TIMEOUT);
        long setUp = System.nanoTime();
        LOG.info(
            "Kill test: broker, tables and {} processors up in {} ms; logs in {}",
            PROCESSORS,
            millisSince(started),
            LOGS.toAbsolutePath());

        // Load and kills, for the kill window.
        BoundedWriter writer =
            SteadyWriter.create(
                db.emf(),
                topic,
                "kill-" + runId,
                AGGREGATES,
                WRITER_THREADS,
                MAX_EVENTS_PER_AGGREGATE_AND_TRANSACTION);
        long windowEnd = KILLS.windowEnd(setUp);
        writer.start(MAX_EVENTS, EVENTS_PER_SECOND, windowEnd);
        Periodic progress =
            new Periodic(Duration.ofSeconds(5), () -> progress(writer, consumer, fleet, started));
        KILLS.run(
            fleet,
            windowEnd,
            instanceId -> true,
            () -> writer.failure() != null,
            progress,
            kill ->
                LOG.info(
                    "SIGKILL {} (pid {}): started in {} ms, killed after {} ms processing; {} events"
                        + " written, {} distinct consumed",
                    kill.instanceId(),
                    kill.pid(),
                    kill.startedIn().toMillis(),
                    kill.readyFor().toMillis(),
                    writer.total(),
                    consumer.distinct()));
        writer.await(Duration.ofSeconds(30));
        long writing = System.nanoTime();
        int written = writer.total();
        int consumedInWindow = consumer.distinct();
        LOG.info(
            "Kill test: writing stopped: {} events in {} transactions over {} aggregates; {}"
                + " kills; {} distinct consumed",
            written,
            writer.transactions(),
            writer.eventsPerAggregate().size(),
            fleet.kills().size(),
            consumer.distinct());

        // Drain: the processors that run now deliver the rest.
        long drainEnd =
            Math.min(
                System.nanoTime() + DRAIN_TIMEOUT.toNanos(), started + DRAIN_DEADLINE.toNanos());
        while (consumer.distinct() < written
            && System.nanoTime() < drainEnd
            && consumer.failure() == null) {
          Thread.sleep(100);
          progress.run();
        }
        long drained = System.nanoTime();
        Thread.sleep(1_000); // late duplicates, if any, arrive now
        boolean settled = await(() -> db.countOutbox("PENDING") == 0, Duration.ofSeconds(5));
        List<String> stubborn = fleet.stopGracefully(Duration.ofSeconds(10));
        long stillLeased = leasedHeads(db);
        List<Received> received = consumer.received();

        // What was committed, from the outbox table itself.
        Map<String, Row> rows = rows(db, topic);
        Verdict verdict = judge(rows, received);
        DeliveryCheck check = DeliveryCheck.expecting(writer.eventsPerAggregate());
        received.forEach(r -> check.record(r.aggregateId(), r.sequence(), r.messageId()));

        List<JvmFleet.Kill> kills = fleet.kills();
        LOG.info(
            "Kill test result: {} events ({} outbox rows) of {} aggregates written in {} ms;"
                + " {} SIGKILLs, {} restarts; {} deliveries, {} distinct, {} lost, {} duplicates"
                + " ({} events redelivered), {} out of order; {} consumed during the kill window,"
                + " the rest drained {} ms after writing stopped; {} writer transactions retried;"
                + " total {} ms",
            written,
            rows.size(),
            writer.eventsPerAggregate().size(),
            millisBetween(setUp, writing),
            kills.size(),
            fleet.restarts(),
            received.size(),
            verdict.distinct(),
            verdict.lost().size(),
            received.size() - verdict.distinct(),
            verdict.redelivered(),
            verdict.outOfOrder().size(),
            consumedInWindow,
            millisBetween(writing, drained),
            writer.rolledBack().size(),
            millisSince(started));
        LOG.info("Kill test delivery check: {}", check.summary());
        fleet.reportKills(LOG, "processing");
        writer.rolledBack().stream()
            .limit(10)
            .forEach(failure -> LOG.warn("  writer transaction retried: {}", failure));
        fleet.reportWarnings(LOG, "processor", 40);

        assertThat(consumer.failure()).as("consumer failure").isNull();
        assertThat(rows).as("outbox rows against events committed").hasSize(written);
        assertThat(verdict.lost())
            .as("committed messages never consumed (first 20 of %d)", verdict.lost().size())
            .isEmpty();
        assertThat(verdict.outOfOrder())
            .as("first deliveries out of seq order (first 20)")
            .isEmpty();
        assertThat(verdict.unknown()).as("records that match no outbox row").isEmpty();
        check.assertDeliveredInOrder();
        assertThat(kills.size())
            .as("SIGKILLs of running processors (the test must not pass without kills)")
            .isGreaterThanOrEqualTo(KILLS.minKills());
        assertThat(kills)
            .as("every kill a SIGKILL (exit value 128 + 9)")
            .allMatch(kill -> kill.exitValue() == 137);
        assertThat(settled).as("every head's cursor at its last seq").isTrue();
        assertThat(db.countDeadLetters()).as("dead letters").isZero();
        assertThat(stubborn).as("processors that did not close on SIGTERM").isEmpty();
        assertThat(stillLeased).as("heads still leased after every processor closed").isZero();
      }
    }
  }

  /** A committed message: its aggregate and seq. */
  private record Row(String aggregateId, long seq) {}

  /**
   * What the consumer saw against the outbox rows.
   *
   * @param distinct distinct message ids received
   * @param redelivered messages received more than once
   * @param lost message ids of rows never received (at most 20 kept, all counted)
   * @param outOfOrder first deliveries whose seq is not the next one of their aggregate
   * @param unknown records whose id is no row, or whose payload number is not the row's seq - 1
   */
  private record Verdict(
      int distinct,
      int redelivered,
      List<String> lost,
      List<String> outOfOrder,
      List<String> unknown) {}

  private static Verdict judge(Map<String, Row> rows, List<Received> received) {
    Map<String, Long> lastFirstSeq = new HashMap<>();
    Map<String, Received> lastFirst = new HashMap<>();
    Set<String> seen = new HashSet<>();
    Set<String> redelivered = new HashSet<>();
    List<String> outOfOrder = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    for (Received record : received) {
      Row row = rows.get(record.messageId());
      if (row == null
          || !row.aggregateId().equals(record.aggregateId())
          || row.seq() != record.sequence() + 1) {
        unknown.add(record + " row " + row);
        continue;
      }
      if (!seen.add(record.messageId())) {
        redelivered.add(record.messageId());
        continue;
      }
      long previous = lastFirstSeq.getOrDefault(record.aggregateId(), 0L);
      if (row.seq() != previous + 1 && outOfOrder.size() < 20) {
        outOfOrder.add(
            record.aggregateId()
                + ": seq "
                + row.seq()
                + " first delivered after seq "
                + previous
                + " (this "
                + record
                + ", previous first delivery "
                + lastFirst.get(record.aggregateId())
                + ")");
      }
      lastFirstSeq.merge(record.aggregateId(), row.seq(), Math::max);
      lastFirst.put(record.aggregateId(), record);
    }
    List<String> lost = new ArrayList<>();
    rows.entrySet().stream()
        .filter(entry -> !seen.contains(entry.getKey()))
        .sorted(Comparator.comparing((Map.Entry<String, Row> e) -> e.getValue().aggregateId()))
        .forEach(
            entry ->
                lost.add(
                    entry.getValue().aggregateId()
                        + " seq "
                        + entry.getValue().seq()
                        + " ("
                        + entry.getKey()
                        + ")"));
    return new Verdict(
        seen.size(),
        redelivered.size(),
        lost.size() <= 20 ? lost : lost.subList(0, 20),
        outOfOrder,
        unknown.size() <= 20 ? unknown : unknown.subList(0, 20));
  }

  private static Map<String, Row> rows(E2eDatabase db, String aggregateType) throws SQLException {
    Map<String, Row> rows = new HashMap<>();
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT id::text, aggregate_id, seq FROM "
                    + db.options().outboxTable()
                    + " WHERE aggregate_type = ?")) {
      statement.setString(1, aggregateType);
      try (ResultSet result = statement.executeQuery()) {
        while (result.next()) {
          rows.put(result.getString(1), new Row(result.getString(2), result.getLong(3)));
        }
      }
    }
    return rows;
  }

  private static long leasedHeads(E2eDatabase db) throws SQLException {
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT count(*) FROM "
                    + db.options().headTable()
                    + " WHERE claimed_by IS NOT NULL");
        ResultSet result = statement.executeQuery()) {
      result.next();
      return result.getLong(1);
    }
  }

  private static void progress(
      BoundedWriter writer, RecordingConsumer consumer, JvmFleet fleet, long started) {
    LOG.info(
        "  at {} ms (load {}): {} written, {} distinct consumed ({} deliveries), {} kills; {}",
        millisSince(started),
        String.format("%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()),
        writer.total(),
        consumer.distinct(),
        consumer.deliveries(),
        fleet.kills().size(),
        fleet);
  }

  private static boolean await(BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(100);
    }
    return true;
  }

  private static long millisSince(long start) {
    return millisBetween(start, System.nanoTime());
  }

  private static long millisBetween(long from, long to) {
    return (to - from) / 1_000_000;
  }
}
