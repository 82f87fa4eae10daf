package dev.outbox.cli;

import dev.outbox.inbox.Inbox;
import dev.outbox.inbox.InboxPosition;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code outbox inbox positions}: where a consumer stands on each aggregate. */
@Command(
    name = "positions",
    description =
        "Lists a consumer's position per aggregate (the epoch and seq last applied), by aggregate.")
final class InboxPositionsCommand extends InboxView {

  InboxPositionsCommand(Context context) {
    super(context);
  }

  @Override
  List<InboxPosition> read(Inbox inbox, int limit) {
    return inbox.positions(limit);
  }

  @Override
  String none(String source) {
    return "Inbox " + source + " has no position: it applied nothing yet, or cleanup removed them.";
  }
}
