package dev.outbox.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.DeadLetter;
import dev.outbox.DeadLetterQuery;
import dev.outbox.spi.OutboxStore;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What replay and purge share: the dead letters named by ids, by a filter or by {@code --all}; the
 * count first; {@code --dry-run} and {@code --expect}; then the action in chunks.
 */
abstract class DeadLetterAction implements Callable<Integer> {

  private static final int PAGE = 1_000;
  private static final int CHUNK = 500;
  private static final int DRY_RUN_SHOWN = 20;

  private final Context context;

  @Mixin private DatabaseOptions database;
  @Mixin private DeadLetterFilter filter;
  @Mixin private HelpOption help;

  @Parameters(
      paramLabel = "ID",
      arity = "0..*",
      converter = MessageIdConverter.class,
      description = "Message ids. Give ids, or a filter, or --all.")
  private List<UUID> ids = new ArrayList<>();

  @Option(names = "--all", description = "Every dead letter (when no id and no filter is given).")
  private boolean all;

  @Option(names = "--dry-run", description = "Count and list the matches; change nothing.")
  private boolean dryRun;

  @Option(
      names = "--expect",
      paramLabel = "COUNT",
      description =
          "Go on only if exactly COUNT dead letters match (the count a dry run showed);"
              + " otherwise change nothing and exit 6.")
  private Long expect;

  @Option(names = "--json", description = "One JSON object: matched, ids, and how many changed.")
  private boolean json;

  DeadLetterAction(Context context) {
    this.context = context;
  }

  /** {@code replay} or {@code purge}. */
  abstract String verb();

  /** {@code replayed} or {@code purged}. */
  abstract String done();

  /**
   * What follows in the text output after the count of changed dead letters.
   *
   * @param changed how many were changed, for the grammar of the text
   */
  abstract String afterwards(int changed);

  /** Acts on one chunk; returns how many it changed. */
  abstract int act(OutboxStore store, Collection<UUID> chunk);

  @Override
  public Integer call() {
    checkSelection();
    OutboxStore store = database.open();
    List<UUID> matched = ids.isEmpty() ? matching(store, filter.query()) : existing(store);
    PrintWriter out = context.out();
    if (expect != null && expect != matched.size()) {
      throw new CliException(
          Exit.UNEXPECTED_COUNT,
          Text.deadLettersMatch(matched.size())
              + ", but --expect said "
              + expect
              + "; nothing was "
              + done());
    }
    int changed = 0;
    if (!dryRun) {
      for (int from = 0; from < matched.size(); from += CHUNK) {
        changed += act(store, matched.subList(from, Math.min(matched.size(), from + CHUNK)));
      }
    }
    if (json) {
      out.println(Json.line(toJson(matched, changed)));
    } else {
      print(store, matched, changed, out);
    }
    return Exit.OK;
  }

  private void checkSelection() {
    boolean filtered = !filter.isEmpty();
    if (!ids.isEmpty() && (filtered || all)) {
      throw new CliException(Exit.USAGE, "Give ids or a filter (or --all), not both");
    }
    if (ids.isEmpty() && !filtered && !all) {
      throw new CliException(
          Exit.USAGE,
          "Name the dead letters to "
              + verb()
              + ": ids, a filter (--event-type, --aggregate-type, --aggregate-id, --error,"
              + " --since, --until), or --all");
    }
  }

  /** The ids as given, once each; all of them must be dead letters. */
  private List<UUID> existing(OutboxStore store) {
    List<UUID> unique = ids.stream().distinct().toList();
    List<UUID> unknown = unique.stream().filter(id -> store.findDeadLetter(id).isEmpty()).toList();
    if (!unknown.isEmpty()) {
      throw new CliException(
          Exit.NOT_FOUND,
          "No dead letter with id "
              + String.join(", ", unknown.stream().map(UUID::toString).toList())
              + " in "
              + database.deadLetterTable()
              + "; nothing was "
              + done());
    }
    return unique;
  }

  private static List<UUID> matching(OutboxStore store, DeadLetterQuery query) {
    List<UUID> found = new ArrayList<>();
    List<DeadLetter> page;
    do {
      page = store.findDeadLetters(query.page(found.size(), PAGE));
      page.forEach(letter -> found.add(letter.message().id()));
    } while (page.size() == PAGE);
    return found;
  }

  private ObjectNode toJson(List<UUID> matched, int changed) {
    ObjectNode node = Json.object();
    node.put("action", verb());
    node.put("dryRun", dryRun);
    node.put("matched", matched.size());
    node.put(done(), changed);
    ArrayNode list = node.putArray("ids");
    matched.forEach(id -> list.add(id.toString()));
    return node;
  }

  private void print(OutboxStore store, List<UUID> matched, int changed, PrintWriter out) {
    out.println(Text.deadLettersMatch(matched.size()));
    if (dryRun) {
      for (UUID id : matched.subList(0, Math.min(DRY_RUN_SHOWN, matched.size()))) {
        store
            .findDeadLetter(id)
            .ifPresent(
                letter ->
                    out.printf(
                        "  %s  %s  %s/%s  %s%n",
                        id,
                        letter.message().eventType(),
                        letter.message().aggregateType(),
                        letter.message().aggregateId(),
                        Text.cut(letter.lastError(), 60)));
      }
      if (matched.size() > DRY_RUN_SHOWN) {
        out.printf("  ... and %d more%n", matched.size() - DRY_RUN_SHOWN);
      }
      out.printf(
          "Dry run: nothing was %s. Run again without --dry-run (add --expect %d to be sure"
              + " the same ones match).%n",
          done(), matched.size());
      return;
    }
    out.printf("%s %d%s%n", capitalized(done()), changed, afterwards(changed));
  }

  private static String capitalized(String word) {
    return Character.toUpperCase(word.charAt(0)) + word.substring(1);
  }
}
