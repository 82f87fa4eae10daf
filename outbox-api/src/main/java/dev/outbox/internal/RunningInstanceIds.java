package dev.outbox.internal;

import dev.outbox.spi.OutboxStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instance ids of the outboxes running in this JVM, each held from its start to its close, so
 * that no two run under one id and their log lines, threads and leases tell them apart. An outbox
 * that starts under an id a running one holds runs under it with a suffix ({@code -2}, {@code -3},
 * ...): with an info line when the id was generated (one per options object, so shared by every
 * outbox built on the same options), with a warning when the user set it, who meant one outbox to
 * run under it. Refusing to start would be harsher than the fault: two outboxes under one id lose
 * and double nothing (each lease has a token of its own), and a context cache of a test framework,
 * or an id taken from the host name, runs two on one set id without any mistake of the user's.
 *
 * <p>Outboxes that deliver from one store split its messages between them, each message going to
 * one of them only: almost always a mistake (one outbox per broker, or one created twice), so a
 * warning, unless every one of them has an id the user set, who then runs several on purpose (as
 * tests that play several instances do): an info line.
 */
final class RunningInstanceIds {

  private static final Logger LOG = LoggerFactory.getLogger(RunningInstanceIds.class);

  /** The longest instance id, as {@link dev.outbox.OutboxOptions.Builder#instanceId} checks. */
  private static final int MAX_LENGTH = 100;

  /** The ids of this JVM. */
  static final RunningInstanceIds JVM = new RunningInstanceIds();

  /**
   * An outbox that starts.
   *
   * @param outbox the outbox, which gives its id back with {@link #release}
   * @param store its store
   * @param idSet whether the user set its id
   * @param delivers whether it delivers the store's messages (polling), rather than a connector
   */
  record Starter(Object outbox, OutboxStore store, boolean idSet, boolean delivers) {}

  private final Map<String, Starter> running = new LinkedHashMap<>();

  /**
   * Takes the id an outbox runs under until it {@linkplain #release releases} it, and logs when it
   * is not the wanted one or the store is shared.
   *
   * @param wanted the id of its options
   * @param starter the outbox
   * @return the wanted id, or the wanted id with a suffix when a running outbox holds it
   */
  synchronized String take(String wanted, Starter starter) {
    boolean held = running.containsKey(wanted);
    String id = held ? suffixed(wanted) : wanted;
    List<Map.Entry<String, Starter>> sharing =
        running.entrySet().stream()
            .filter(other -> starter.delivers() && other.getValue().delivers())
            .filter(other -> other.getValue().store() == starter.store())
            .toList();
    running.put(id, starter);
    String renamed = held ? renamed(wanted, id, starter.idSet()) : "";
    if (!sharing.isEmpty()) {
      boolean meant =
          !held && starter.idSet() && sharing.stream().allMatch(e -> e.getValue().idSet());
      logSharing(id, sharing.stream().map(Map.Entry::getKey).toList(), renamed, meant);
    } else if (held && starter.idSet()) {
      LOG.warn("Outbox {} started while another outbox of this JVM runs.{}", id, renamed);
    } else if (held) {
      LOG.info(
          "Outbox {} started while another outbox of this JVM runs.{} Set instanceId per outbox"
              + " to name them.",
          id,
          renamed);
    }
    return id;
  }

  /**
   * Frees the id an outbox holds, if it holds one.
   *
   * @param outbox the outbox that {@link #take took} it
   */
  synchronized void release(Object outbox) {
    running.values().removeIf(starter -> starter.outbox() == outbox);
  }

  private static void logSharing(String id, List<String> others, String renamed, boolean meant) {
    String line =
        "Outbox "
            + id
            + " delivers from the same store as "
            + (others.size() == 1 ? "outbox " : "outboxes ")
            + String.join(", ", others)
            + ", running in this JVM: they split the store's messages between them, each message"
            + " going to one of them only."
            + renamed;
    if (meant) {
      LOG.info(line);
      return;
    }
    LOG.warn(
        line
            + " One outbox per store delivers all of its messages: close the extra one (to"
            + " publish to several brokers, give one outbox a publisher that sends to each). If"
            + " several are meant (as in a test that plays several instances), set instanceId per"
            + " outbox: this line then goes to INFO.");
  }

  /** Why an outbox runs under another id than its options': which outbox holds it, and the fix. */
  private static String renamed(String wanted, String id, boolean set) {
    return " It runs as "
        + id
        + " because outbox "
        + wanted
        + " holds "
        + wanted
        + (set
            ? ", the instance id set for both: set one of its own for each outbox"
                + " (OutboxOptions.Builder.instanceId, setting outbox.instance-id), or leave it"
                + " unset to have one generated."
            : ", the instance id generated once per OutboxOptions that both were built on.");
  }

  /** The first of {@code wanted-2}, {@code wanted-3}, ... that no running outbox holds. */
  private String suffixed(String wanted) {
    for (int n = 2; ; n++) {
      String suffix = "-" + n;
      int over = wanted.length() + suffix.length() - MAX_LENGTH;
      String id = (over > 0 ? wanted.substring(over) : wanted) + suffix;
      if (!running.containsKey(id)) {
        return id;
      }
    }
  }
}
