package dev.outbox.cli;

import dev.outbox.spi.OutboxStore;
import java.util.Collection;
import java.util.UUID;
import picocli.CommandLine.Command;

/** {@code outbox dead-letters replay}: dead letters back to the outbox, for the processors. */
@Command(
    name = "replay",
    description = {
      "Puts dead letters back into the outbox; the running processors deliver them (within their"
          + " poll interval). Each keeps its id. One its aggregate is held on goes out in place,"
          + " before the later messages of its aggregate; any other is appended to its aggregate"
          + " again, after what is pending there."
    })
final class ReplayDeadLettersCommand extends DeadLetterAction {

  ReplayDeadLettersCommand(Context context) {
    super(context);
  }

  @Override
  String verb() {
    return "replay";
  }

  @Override
  String done() {
    return "replayed";
  }

  @Override
  String afterwards(int changed) {
    return changed == 1
        ? "; the running processors deliver it."
        : "; the running processors deliver them.";
  }

  @Override
  int act(OutboxStore store, Collection<UUID> chunk) {
    return store.replayDeadLetters(chunk);
  }
}
