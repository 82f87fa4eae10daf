package dev.outbox.cli;

import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxPosition;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code outbox inbox gaps}: the aggregates whose next message came before the ones it follows. */
@Command(
    name = "gaps",
    description =
        "Lists the aggregates a consumer waits on: a message arrived before the ones it follows"
            + " (gap policy WAIT), oldest first.")
final class InboxGapsCommand extends InboxView {

  InboxGapsCommand(Context context) {
    super(context);
  }

  @Override
  List<InboxPosition> read(Inbox inbox, int limit) {
    return inbox.gaps(limit);
  }

  @Override
  String none(String source) {
    return "Inbox " + source + " waits on no gap.";
  }
}
