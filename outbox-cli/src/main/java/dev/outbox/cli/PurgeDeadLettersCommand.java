package dev.outbox.cli;

import dev.outbox.spi.OutboxStore;
import java.util.Collection;
import java.util.UUID;
import picocli.CommandLine.Command;

/** {@code outbox dead-letters purge}: dead letters deleted for good. */
@Command(
    name = "purge",
    description = {
      "Deletes dead letters for good. An aggregate held on one goes on past it.",
    })
final class PurgeDeadLettersCommand extends DeadLetterAction {

  PurgeDeadLettersCommand(Context context) {
    super(context);
  }

  @Override
  String verb() {
    return "purge";
  }

  @Override
  String done() {
    return "purged";
  }

  @Override
  String afterwards(int changed) {
    return ".";
  }

  @Override
  int act(OutboxStore store, Collection<UUID> chunk) {
    return store.purgeDeadLetters(chunk);
  }
}
