package dev.outbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.IncomingMessage;
import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.HibernateOutbox;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.ClaimRequest;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.HeadOutcome;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.PublishResult;
import dev.outbox.spi.WireHeaders;
import dev.outbox.testkit.TcpProxy;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The tool against a real database: its figures are what the store holds, its filters select what
 * they say, a replay is delivered by a running processor, and each bad input gives its message and
 * exit code.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOutboxCliIT {

  private static final Duration LEASE = Duration.ofMinutes(2);

  CliDatabase db;
  OutboxStore store;

  abstract CliDatabase.Server server();

  @BeforeAll
  void startDatabase() {
    db = CliDatabase.start(server());
    store = db.store();
  }

  @AfterAll
  void closeDatabase() {
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void empty() {
    db.clear();
  }

  /** The state the status and list tests read; see the comments for what each head is. */
  private Map<String, OutboxMessage> shapeBacklog() throws InterruptedException {
    db.writer("orders").write(6, 6, 1);
    db.writer("payments").write(4, 2, 1);
    List<LeasedHead> heads = claim("worker-a", 100);
    assertThat(heads).hasSize(8);
    List<LeasedHead> orders =
        heads.stream()
            .filter(h -> h.lease().aggregateType().equals("orders"))
            .sorted(Comparator.comparing(h -> h.lease().aggregateId()))
            .toList();
    OutboxMessage full = orders.get(0).messages().get(0);
    OutboxMessage large = orders.get(1).messages().get(0);
    Instant now = Instant.now();
    store.record(
        List.of(
            // orders 0: dead-lettered, its aggregate goes on
            new HeadOutcome.DeadLettered(
                orders.get(0).lease(), 0, full.id(), 1, 3, "Broker said 100% FULL", now, false),
            // orders 1: dead-lettered and held there
            new HeadOutcome.DeadLettered(
                orders.get(1).lease(),
                0,
                large.id(),
                1,
                5,
                "rejected: record too large",
                now,
                true),
            // orders 2: failed once, waits for its retry
            new HeadOutcome.Retry(orders.get(2).lease(), 0, 1, "timed out", Duration.ofMinutes(5)),
            // orders 3: released, claimed next by worker-b
            new HeadOutcome.Released(orders.get(3).lease(), 0),
            // orders 4: its send failed for a broker outage, no attempt counted; due again
            new HeadOutcome.Retry(
                orders.get(4).lease(),
                0,
                0,
                AggregateCounts.BROKER_UNAVAILABLE + "connection refused",
                Duration.ofMinutes(5))));
    assertThat(claim("worker-b", 100)).hasSize(1);
    // worker-a keeps orders 5 and both payments aggregates
    return Map.of("full", full, "large", large);
  }

  private List<LeasedHead> claim(String instance, int limit) {
    return store.claim(new ClaimRequest(instance, limit, LEASE, true));
  }

  @Test
  void statusShowsWhatTheStoreHolds() throws Exception {
    shapeBacklog();

    CliRun run = CliRun.of(db.args("status", "--json"));

    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode status = run.json();
    OutboxStats stats = store.stats();
    assertThat(status.get("pending").asLong()).isEqualTo(stats.pending()).isEqualTo(9);
    assertThat(status.get("deadLetters").asLong()).isEqualTo(stats.deadLetters()).isEqualTo(2);
    assertThat(Instant.parse(status.get("oldestPendingCreatedAt").asText()))
        .isEqualTo(stats.oldestPendingCreatedAt());
    assertThat(status.get("lagSeconds").asDouble()).isPositive();
    assertThat(status.get("aggregatesRetrying").asLong()).isEqualTo(1);
    assertThat(status.get("aggregatesHeld").asLong()).isEqualTo(1);
    assertThat(status.get("aggregatesWaitingForBroker").asLong()).isEqualTo(1);
    assertThat(status.get("leases").get("worker-a").asLong()).isEqualTo(3);
    assertThat(status.get("leases").get("worker-b").asLong()).isEqualTo(1);
    assertThat(status.get("leases").size()).isEqualTo(2);

    CliRun text = CliRun.of(db.args("status"));
    assertThat(text.exitCode()).isZero();
    assertThat(text.out())
        .containsPattern("pending +9 messages")
        .containsPattern("retrying +1 aggregate\\b")
        .containsPattern("held +1 aggregate at a dead letter")
        .containsPattern(
            "broker outage +1 aggregate last failed because the broker was unavailable")
        .containsPattern("dead letters +2")
        .containsPattern("leases +4 held by 2 instances")
        .containsPattern("worker-a +3")
        .containsPattern("worker-b +1");
  }

  @Test
  void statusWatchRefreshesAsManyTimesAsAsked() {
    CliRun run = CliRun.of(db.args("status", "--json", "--watch", "100ms", "--iterations", "3"));

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out().lines()).hasSize(3).allMatch(line -> line.contains("\"pending\":0"));
  }

  @Test
  void aWatchThatLosesTheDatabaseExitsThreeWithOneLine() throws Exception {
    URI target = URI.create(db.url().substring("jdbc:".length()));
    CompletableFuture<CliRun> watching;
    try (TcpProxy proxy = new TcpProxy(target.getHost(), target.getPort())) {
      String viaProxy = db.url().replaceFirst(":\\d+/", ":" + proxy.port() + "/");
      String[] args = db.args("status", "--json", "--watch", "1s", "--iterations", "60");
      args[Arrays.asList(args).indexOf(db.url())] = viaProxy;
      watching = CompletableFuture.supplyAsync(() -> CliRun.of(args));
      // The check at open, then the first reading, printed well before the next one, a second on.
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.connections() >= 2);
      Thread.sleep(500);
    }
    CliRun run = watching.get(60, TimeUnit.SECONDS);

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out().lines()).isNotEmpty().allMatch(line -> line.contains("\"pending\""));
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).startsWith("outbox: Lost the database at ");
  }

  @Test
  void deadLettersAreListedByEachFilterAndShownWithPayloadHeadersAndError() throws Exception {
    Map<String, OutboxMessage> dead = shapeBacklog();
    OutboxMessage large = dead.get("large");

    assertThat(listIds()).hasSize(2);
    assertThat(listIds("--error", "100% full")).containsExactly(dead.get("full").id().toString());
    assertThat(listIds("--error", "100_full")).isEmpty();
    assertThat(listIds("--aggregate-id", large.aggregateId()))
        .containsExactly(large.id().toString());
    assertThat(listIds("--aggregate-type", "payments")).isEmpty();
    assertThat(listIds("--event-type", large.eventType())).hasSize(2);
    assertThat(listIds("--event-type", "no.such.type")).isEmpty();
    assertThat(listIds("--since", "1h")).hasSize(2);
    assertThat(listIds("--until", "1h")).isEmpty();
    assertThat(listIds("--since", "2000-01-01", "--until", Instant.now().plusSeconds(60) + ""))
        .hasSize(2);
    CliRun page = CliRun.of(db.args("dead-letters", "list", "--limit", "1"));
    assertThat(page.out()).contains("1 to 1 of 2 (next page: --offset 1)");
    CliRun beyond = CliRun.of(db.args("dead-letters", "list", "--offset", "5"));
    assertThat(beyond.out()).contains("2 dead letters match; none at offset 5.");

    CliRun shown = CliRun.of(db.args("dead-letters", "show", "" + large.id()));
    assertThat(shown.exitCode()).as(shown.toString()).isZero();
    assertThat(shown.out())
        .contains(large.payload())
        .contains("rejected: record too large")
        .containsPattern("attempts +5");
    large.headers().forEach((name, value) -> assertThat(shown.out()).contains(name + ": " + value));

    JsonNode json = CliRun.of(db.args("dead-letters", "show", "" + large.id(), "--json")).json();
    assertThat(json.get("payload").asText()).isEqualTo(large.payload());
    assertThat(json.get("lastError").asText()).isEqualTo("rejected: record too large");
    assertThat(json.get("aggregateId").asText()).isEqualTo(large.aggregateId());
    assertThat(json.get("headers").size()).isEqualTo(large.headers().size());
  }

  private List<String> listIds(String... filter) {
    CliRun run = CliRun.of(CliRun.args(db.args("dead-letters", "list", "--json"), filter));
    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode page = run.json();
    List<String> ids = page.get("deadLetters").findValuesAsText("id");
    assertThat(page.get("total").asLong()).isEqualTo(ids.size());
    return ids;
  }

  @Test
  void aReplayedDeadLetterIsDeliveredByARunningProcessorAfterADryRunAndACount() throws Exception {
    List<OutboxMessage> dead = deadLetterThree();
    Set<UUID> delivered = ConcurrentHashMap.newKeySet();
    EventPublisher publisher =
        (messages, timeout) ->
            messages.stream()
                .map(
                    m -> {
                      delivered.add(m.id());
                      return PublishResult.published(m.id());
                    })
                .toList();
    try (Outbox outbox = HibernateOutbox.create(db.emf(), publisher, db.options())) {
      outbox.start();

      CliRun dryRun =
          CliRun.of(db.args("dead-letters", "replay", "--error", "refused", "--dry-run"));
      assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
      assertThat(dryRun.out()).contains("3 dead letters match").contains("Dry run");
      assertThat(store.countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);

      CliRun wrongCount = CliRun.of(db.args("dead-letters", "replay", "--all", "--expect", "2"));
      assertThat(wrongCount.exitCode()).isEqualTo(6);
      assertThat(wrongCount.err()).contains("3 dead letters match, but --expect said 2");
      assertThat(store.countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);

      UUID held = dead.get(0).id();
      CliRun one = CliRun.of(db.args("dead-letters", "replay", "" + held));
      assertThat(one.exitCode()).as(one.toString()).isZero();
      assertThat(one.out())
          .contains("1 dead letter matches")
          .contains("Replayed 1; the running processors deliver it.");
      await().atMost(Duration.ofSeconds(20)).until(() -> delivered.contains(held));

      CliRun rest =
          CliRun.of(db.args("dead-letters", "replay", "--all", "--expect", "2", "--json"));
      assertThat(rest.exitCode()).as(rest.toString()).isZero();
      assertThat(rest.json().get("replayed").asInt()).isEqualTo(2);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> delivered.containsAll(dead.stream().map(OutboxMessage::id).toList()));
      await().atMost(Duration.ofSeconds(20)).until(() -> store.stats().pending() == 0);
      JsonNode status = CliRun.of(db.args("status", "--json")).json();
      assertThat(status.get("deadLetters").asLong()).isZero();
      assertThat(status.get("aggregatesHeld").asLong()).isZero();
    }
  }

  /** Three messages dead-lettered on three aggregates; the first one's aggregate is held. */
  private List<OutboxMessage> deadLetterThree() throws InterruptedException {
    db.writer("orders").write(3, 3, 1);
    List<LeasedHead> heads = claim("worker-a", 100);
    assertThat(heads).hasSize(3);
    Instant now = Instant.now();
    List<OutboxMessage> dead =
        heads.stream()
            .sorted(Comparator.comparing(h -> h.lease().aggregateId()))
            .map(h -> h.messages().get(0))
            .toList();
    List<HeadOutcome> outcomes =
        heads.stream()
            .sorted(Comparator.comparing(h -> h.lease().aggregateId()))
            .map(
                h ->
                    (HeadOutcome)
                        new HeadOutcome.DeadLettered(
                            h.lease(),
                            0,
                            h.messages().get(0).id(),
                            1,
                            2,
                            "refused by the broker",
                            now,
                            h == heads.get(0)))
            .toList();
    store.record(outcomes);
    return dead.stream()
        .sorted(Comparator.comparing((OutboxMessage m) -> !m.aggregateId().equals(holdOf(heads))))
        .toList();
  }

  private static String holdOf(List<LeasedHead> heads) {
    return heads.get(0).lease().aggregateId();
  }

  @Test
  void purgeCountsFirstAndDeletesForGood() throws Exception {
    deadLetterThree();

    CliRun dryRun = CliRun.of(db.args("dead-letters", "purge", "--all", "--dry-run"));
    assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
    assertThat(dryRun.out()).contains("3 dead letters match");
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);

    CliRun purge =
        CliRun.of(db.args("dead-letters", "purge", "--aggregate-type", "orders", "--expect", "3"));
    assertThat(purge.exitCode()).as(purge.toString()).isZero();
    assertThat(purge.out()).contains("Purged 3");
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isZero();
    assertThat(store.aggregateCounts().held()).as("the held aggregate goes on").isZero();
  }

  @Test
  void anUnknownIdChangesNothingAndExitsFive() throws Exception {
    List<OutboxMessage> dead = deadLetterThree();
    String unknown = UUID.randomUUID().toString();

    CliRun show = CliRun.of(db.args("dead-letters", "show", unknown));
    assertThat(show.exitCode()).isEqualTo(5);
    assertThat(show.err().strip())
        .isEqualTo("outbox: No dead letter with id " + unknown + " in cli_dead_letters");

    CliRun replay = CliRun.of(db.args("dead-letters", "replay", "" + dead.get(1).id(), unknown));
    assertThat(replay.exitCode()).isEqualTo(5);
    assertThat(replay.err()).contains(unknown).contains("nothing was replayed");
    assertThat(store.findDeadLetter(dead.get(1).id())).isPresent();
    assertThat(store.countDeadLetters(DeadLetterQuery.all())).isEqualTo(3);
  }

  @Test
  void aMissingTableNamesItAndHowToCreateIt() {
    CliRun run = CliRun.of("status", "--url", db.url(), "--outbox-table", "no_such_outbox");

    assertThat(run.exitCode()).isEqualTo(4);
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err())
        .contains("no_such_outbox")
        .contains("V1__outbox_tables.sql")
        .contains("--outbox-table");
  }

  @Test
  void anUnreachableDatabaseIsOneLineWithoutThePassword() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    String url = db.url().replaceFirst(":\\d+/", ":" + closed + "/") + "&password=url-secret-42";

    CliRun run =
        CliRun.withEnv(
            Map.of("OUTBOX_PW", "env-secret-43"),
            "status",
            "--url",
            url,
            "--user",
            "ops",
            "--password-env",
            "OUTBOX_PW",
            "--connect-timeout",
            "3s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err())
        .startsWith("outbox: Cannot connect to ")
        .contains("password=****")
        .contains("as ops")
        .doesNotContain("url-secret-42")
        .doesNotContain("env-secret-43");
  }

  @Test
  void badArgumentsExitTwoWithTheirMessage() {
    assertUsage(CliRun.of("status"), "Missing --url");
    assertUsage(
        CliRun.of(db.args("dead-letters", "show", "not-an-id")), "'not-an-id' is not a message id");
    assertUsage(
        CliRun.of(db.args("dead-letters", "list", "--since", "yesterday")),
        "'yesterday' is not a time");
    assertUsage(
        CliRun.of(db.args("dead-letters", "list", "--limit", "0")),
        "--limit must be between 1 and 10000");
    assertUsage(CliRun.of(db.args("dead-letters", "replay")), "Name the dead letters to replay");
    assertUsage(
        CliRun.of(
            db.args("dead-letters", "purge", UUID.randomUUID().toString(), "--event-type", "x")),
        "Give ids or a filter");
    assertUsage(
        CliRun.of(db.args("status", "--password-env", "NOT_SET_ANYWHERE")),
        "NOT_SET_ANYWHERE, but that environment variable is not set");
    assertUsage(CliRun.of("status", "--url", "postgres://x"), "must be a JDBC URL");
    assertUsage(CliRun.of("status", "--url", "jdbc:oracle:thin:@x:1521/y"), "No JDBC driver");
  }

  private static void assertUsage(CliRun run, String message) {
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.err()).as(run.toString()).contains(message).contains("--help' for usage");
    assertThat(run.out()).isEmpty();
  }

  /** Every dead letter of the store, for messages. */
  List<DeadLetter> deadLetters() {
    return store.findDeadLetters(DeadLetterQuery.all());
  }

  @Test
  void inboxPositionsAndGapsShowWhereAConsumerStands() throws Exception {
    String suffix = Long.toHexString(System.nanoTime());
    InboxOptions options =
        InboxOptions.builder()
            .source("billing")
            .positionsTable("cli_inbox_positions_" + suffix)
            .receivedIdsTable("cli_inbox_ids_" + suffix)
            .createSchema(true)
            .build();
    try (Inbox inbox = Inbox.create(db.dataSource(), options)) {
      inbox.receive(incoming("o-1", 1, 0), (connection, message) -> {});
      inbox.receive(incoming("o-1", 2, 1), (connection, message) -> {});
      inbox.receive(incoming("o-2", 1, 0), (connection, message) -> {});
      inbox.receive(incoming("o-2", 3, 2), (connection, message) -> {});
      String[] tables = {
        "--source",
        "billing",
        "--positions-table",
        options.positionsTable(),
        "--received-ids-table",
        options.receivedIdsTable()
      };

      CliRun positions = CliRun.of(CliRun.args(db.args("inbox", "positions"), tables));
      CliRun gaps = CliRun.of(CliRun.args(db.args("inbox", "gaps"), tables));
      CliRun json = CliRun.of(CliRun.args(db.args("inbox", "gaps", "--json"), tables));
      CliRun other =
          CliRun.of(
              CliRun.args(
                  db.args("inbox", "gaps"),
                  "--source",
                  "shipping",
                  "--positions-table",
                  options.positionsTable(),
                  "--received-ids-table",
                  options.receivedIdsTable()));
      CliRun missing = CliRun.of(CliRun.args(db.args("inbox", "positions"), "--source", "billing"));

      assertThat(positions.exitCode()).as(positions.toString()).isZero();
      assertThat(positions.out())
          .contains("AGGREGATE", "Order/o-1", "Order/o-2")
          .containsPattern("Order/o-1\\s+7\\s+2\\s");
      assertThat(gaps.exitCode()).as(gaps.toString()).isZero();
      assertThat(gaps.out()).contains("Order/o-2").contains("seq 3 since").doesNotContain("o-1");
      assertThat(json.json().get("positions"))
          .singleElement()
          .satisfies(
              node -> {
                assertThat(node.get("aggregateId").asText()).isEqualTo("o-2");
                assertThat(node.get("appliedSeq").asLong()).isEqualTo(1);
                assertThat(node.get("gapSeq").asLong()).isEqualTo(3);
              });
      assertThat(other.out()).contains("Inbox shipping waits on no gap.");
      assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(Exit.NO_TABLES);
      assertThat(missing.err())
          .contains("inbox_positions")
          .contains("V1__inbox_tables.sql")
          .contains("--positions-table");
    } finally {
      db.execute(
          "DROP TABLE IF EXISTS " + options.positionsTable(),
          "DROP TABLE IF EXISTS " + options.receivedIdsTable());
    }
  }

  private static IncomingMessage incoming(String aggregateId, long seq, long prevSeq) {
    return IncomingMessage.of(
        Map.of(
            WireHeaders.MESSAGE_ID,
            aggregateId + "-" + seq + "-" + System.nanoTime(),
            WireHeaders.AGGREGATE_TYPE,
            "Order",
            WireHeaders.AGGREGATE_ID,
            aggregateId,
            WireHeaders.SEQ,
            Long.toString(seq),
            WireHeaders.EPOCH,
            "7",
            WireHeaders.PREV_SEQ,
            Long.toString(prevSeq)),
        new byte[0],
        null);
  }
}
