package dev.outbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.OutboxStore;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code outbox dead-letters list}: a page of dead letters, oldest first. */
@Command(
    name = "list",
    description = "Lists dead letters, oldest first, one page at a time (--offset, --limit).")
final class ListDeadLettersCommand implements Callable<Integer> {

  private final Context context;

  @Mixin private DatabaseOptions database;
  @Mixin private DeadLetterFilter filter;
  @Mixin private HelpOption help;

  @Option(
      names = "--limit",
      defaultValue = "50",
      description = "Page size, 1 to 10000. Default: ${DEFAULT-VALUE}.")
  private int limit;

  @Option(
      names = "--offset",
      defaultValue = "0",
      description = "How many matches to skip. Default: ${DEFAULT-VALUE}.")
  private int offset;

  @Option(names = "--json", description = "One JSON object with the page and the total.")
  private boolean json;

  ListDeadLettersCommand(Context context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    DeadLetterQuery query = Pages.of(filter.query(), offset, limit);
    OutboxStore store = database.open();
    long total = store.countDeadLetters(query);
    List<DeadLetter> page = store.findDeadLetters(query);
    if (json) {
      ObjectNode node = Json.object();
      node.put("total", total);
      node.put("offset", offset);
      node.put("limit", limit);
      ArrayNode letters = node.putArray("deadLetters");
      page.forEach(letter -> letters.add(Json.summary(letter)));
      context.out().println(Json.line(node));
    } else {
      print(page, total, context.out());
    }
    return Exit.OK;
  }

  private void print(List<DeadLetter> page, long total, PrintWriter out) {
    if (page.isEmpty()) {
      out.println(
          total == 0
              ? "No dead letters match."
              : Text.deadLettersMatch(total) + "; none at offset " + offset + ".");
      return;
    }
    String format = "%-36s  %-24s  %-24s  %-28s  %8s  %s%n";
    out.printf(format, "ID", "DEAD-LETTERED", "EVENT TYPE", "AGGREGATE", "ATTEMPTS", "LAST ERROR");
    for (DeadLetter letter : page) {
      OutboxMessage message = letter.message();
      out.printf(
          format,
          message.id(),
          letter.deadLetteredAt(),
          Text.cut(message.eventType(), 24),
          Text.cut(message.aggregateType() + "/" + message.aggregateId(), 28),
          message.attempts(),
          Text.cut(letter.lastError(), 80));
    }
    long last = offset + page.size();
    out.printf(
        "%d to %d of %d%s%n",
        offset + 1, last, total, last < total ? " (next page: --offset " + last + ")" : "");
  }
}
