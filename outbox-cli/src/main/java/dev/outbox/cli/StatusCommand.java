package dev.outbox.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.OutboxException;
import dev.outbox.spi.AggregateCounts;
import dev.outbox.spi.OutboxStats;
import dev.outbox.spi.OutboxStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code outbox status}: the backlog, the aggregates retrying and held, leases and dead letters.
 */
@Command(
    name = "status",
    description = {
      "Shows what waits in the outbox: pending messages and the age of the oldest, aggregates"
          + " waiting for a retry, waiting out a broker outage or held at a dead letter, leases"
          + " per processor instance, and dead letters.",
      "The age is measured on this machine's clock."
    })
final class StatusCommand implements Callable<Integer> {

  private static final String CLEAR_SCREEN = "\033[H\033[2J";

  private final Context context;

  @Mixin private DatabaseOptions database;
  @Mixin private HelpOption help;

  @Option(names = "--json", description = "One JSON object (per refresh with --watch).")
  private boolean json;

  @Option(
      names = "--watch",
      arity = "0..1",
      fallbackValue = "2s",
      paramLabel = "INTERVAL",
      converter = DurationConverter.class,
      description = "Refresh every INTERVAL (2s when not given) until interrupted.")
  private Duration watch;

  @Option(
      names = "--iterations",
      paramLabel = "N",
      description = "With --watch: stop after N refreshes (for scripts).")
  private Integer iterations;

  StatusCommand(Context context) {
    this.context = context;
  }

  @Override
  public Integer call() throws InterruptedException {
    OutboxStore store = database.open();
    int limit = watch == null ? 1 : iterations == null ? Integer.MAX_VALUE : iterations;
    for (int shown = 1; ; shown++) {
      Status status;
      try {
        status = Status.read(store, context.clock().instant());
      } catch (OutboxException e) {
        throw database.lost(e);
      }
      if (watch != null && !json && context.terminal()) {
        context.out().print(CLEAR_SCREEN);
      }
      if (json) {
        context.out().println(Json.line(toJson(status)));
      } else {
        print(status, context.out());
      }
      context.out().flush();
      if (shown >= limit) {
        return Exit.OK;
      }
      Thread.sleep(watch.toMillis());
    }
  }

  /** One reading of the store. */
  private record Status(Instant at, OutboxStats stats, AggregateCounts aggregates) {

    static Status read(OutboxStore store, Instant at) {
      return new Status(at, store.stats(), store.aggregateCounts());
    }

    Duration lag() {
      Instant oldest = stats.oldestPendingCreatedAt();
      if (oldest == null || oldest.isAfter(at)) {
        return Duration.ZERO;
      }
      return Duration.between(oldest, at);
    }
  }

  private ObjectNode toJson(Status status) {
    ObjectNode node = Json.object();
    Json.put(node, "checkedAt", status.at());
    node.put("outboxTable", database.outboxTable());
    node.put("pending", status.stats().pending());
    Json.put(node, "oldestPendingCreatedAt", status.stats().oldestPendingCreatedAt());
    node.put("lagSeconds", status.lag().toMillis() / 1000.0);
    node.put("aggregatesRetrying", status.aggregates().retrying());
    node.put("aggregatesHeld", status.aggregates().held());
    node.put("aggregatesWaitingForBroker", status.aggregates().waitingForBroker());
    node.put("deadLetters", status.stats().deadLetters());
    ObjectNode leases = node.putObject("leases");
    status.aggregates().leasesByInstance().forEach(leases::put);
    return node;
  }

  private void print(Status status, PrintWriter out) {
    out.printf(
        "Outbox %s on %s, %s%n", database.outboxTable(), database.printableUrl(), status.at());
    row(out, "pending", Text.count(status.stats().pending(), "message"));
    Instant oldest = status.stats().oldestPendingCreatedAt();
    row(
        out,
        "oldest pending",
        oldest == null ? "-" : Text.duration(status.lag()) + " old (written " + oldest + ")");
    row(out, "retrying", Text.count(status.aggregates().retrying(), "aggregate"));
    row(out, "held", Text.count(status.aggregates().held(), "aggregate") + " at a dead letter");
    long waiting = status.aggregates().waitingForBroker();
    row(
        out,
        "broker outage",
        waiting == 0
            ? "-"
            : Text.count(waiting, "aggregate")
                + " last failed because the broker was unavailable (no attempt counted)");
    row(out, "dead letters", Long.toString(status.stats().deadLetters()));
    Map<String, Long> leases = status.aggregates().leasesByInstance();
    row(
        out,
        "leases",
        status.aggregates().leases()
            + (leases.isEmpty() ? "" : " held by " + Text.count(leases.size(), "instance")));
    leases.forEach((instance, held) -> out.printf("    %-24s %d%n", instance, held));
  }

  private static void row(PrintWriter out, String label, String value) {
    out.printf("  %-16s %s%n", label, value);
  }
}
