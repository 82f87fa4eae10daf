package dev.outbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.OutboxException;
import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxOptions;
import dev.outbox.inbox.InboxPosition;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code outbox inbox positions} and {@code outbox inbox gaps} share: the inbox tables of a
 * source, read through the inbox itself, printed as a table or JSON.
 */
abstract class InboxView implements Callable<Integer> {

  private final Context context;

  @Spec private CommandSpec spec;
  @Mixin private DatabaseOptions database;
  @Mixin private HelpOption help;

  @Option(
      names = "--source",
      required = true,
      description = "The consumer's name (InboxOptions.source, outbox.inbox.source).")
  private String source;

  @Option(
      names = "--positions-table",
      defaultValue = InboxOptions.DEFAULT_POSITIONS_TABLE,
      description = "The inbox's positions table. Default: ${DEFAULT-VALUE}.")
  private String positionsTable;

  @Option(
      names = "--received-ids-table",
      defaultValue = InboxOptions.DEFAULT_RECEIVED_IDS_TABLE,
      description = "The inbox's table of received ids. Default: ${DEFAULT-VALUE}.")
  private String receivedIdsTable;

  @Option(
      names = "--limit",
      defaultValue = "50",
      description = "How many rows at most, 1 to 10000. Default: ${DEFAULT-VALUE}.")
  private int limit;

  @Option(names = "--json", description = "One JSON object with the rows.")
  private boolean json;

  InboxView(Context context) {
    this.context = context;
  }

  /** The rows this view shows. */
  abstract List<InboxPosition> read(Inbox inbox, int limit);

  /** What to print when there is no row. */
  abstract String none(String source);

  @Override
  public Integer call() {
    if (limit < 1 || limit > 10_000) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be between 1 and 10000, but was " + limit);
    }
    InboxOptions options;
    try {
      options =
          InboxOptions.builder()
              .source(source)
              .positionsTable(positionsTable)
              .receivedIdsTable(receivedIdsTable)
              .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<InboxPosition> rows;
    try (Inbox inbox = open(options)) {
      rows = read(inbox, limit);
    } catch (OutboxException e) {
      throw database.lost(e);
    }
    if (json) {
      ObjectNode node = Json.object();
      node.put("source", options.source());
      ArrayNode positions = node.putArray("positions");
      rows.forEach(row -> positions.add(json(row)));
      context.out().println(Json.line(node));
    } else {
      print(rows, options.source(), context.out());
    }
    return Exit.OK;
  }

  private Inbox open(InboxOptions options) {
    try {
      return Inbox.create(database.dataSource(), options);
    } catch (OutboxException e) {
      throw new CliException(
          Exit.NO_TABLES,
          String.valueOf(e.getMessage()).replaceAll("\\s*\\R\\s*", " ")
              + " Name the tables with --positions-table and --received-ids-table if they are"
              + " not the defaults.",
          e);
    }
  }

  private void print(List<InboxPosition> rows, String source, PrintWriter out) {
    if (rows.isEmpty()) {
      out.println(none(source));
      return;
    }
    String format = "%-40s  %15s  %10s  %-27s  %s%n";
    out.printf(format, "AGGREGATE", "EPOCH", "SEQ", "APPLIED AT", "WAITING");
    for (InboxPosition row : rows) {
      out.printf(
          format,
          Text.cut(row.aggregateType() + "/" + row.aggregateId(), 40),
          row.epoch(),
          row.appliedSeq(),
          row.appliedAt(),
          row.hasGap() ? waiting(row) : "");
    }
    if (rows.size() == limit) {
      out.printf("%d shown (--limit %d); there may be more%n", rows.size(), limit);
    }
  }

  /** The message that came before the ones it follows, and since when it waits. */
  private static String waiting(InboxPosition row) {
    return "seq "
        + row.gapSeq()
        + (row.gapEpoch() == row.epoch() ? "" : " of epoch " + row.gapEpoch())
        + " since "
        + row.gapSince();
  }

  private static ObjectNode json(InboxPosition row) {
    ObjectNode node = Json.object();
    node.put("aggregateType", row.aggregateType());
    node.put("aggregateId", row.aggregateId());
    node.put("epoch", row.epoch());
    node.put("appliedSeq", row.appliedSeq());
    node.put("appliedAt", String.valueOf(row.appliedAt()));
    if (row.hasGap()) {
      node.put("gapEpoch", row.gapEpoch());
      node.put("gapSeq", row.gapSeq());
      node.put("gapSince", String.valueOf(row.gapSince()));
    }
    return node;
  }
}
