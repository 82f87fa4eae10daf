package dev.outbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code outbox dead-letters}: the group of the commands on dead letters. */
@Command(
    name = "dead-letters",
    description = "Lists, shows, replays and purges the messages the outbox gave up on.",
    subcommands = {
      ListDeadLettersCommand.class,
      ShowDeadLetterCommand.class,
      ReplayDeadLettersCommand.class,
      PurgeDeadLettersCommand.class
    })
final class DeadLettersCommand {

  @Mixin private HelpOption help;
}
