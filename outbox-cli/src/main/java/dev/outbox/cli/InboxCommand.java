package dev.outbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code outbox inbox}: the group of the commands on a consumer's inbox (outbox-inbox). */
@Command(
    name = "inbox",
    description =
        "Shows where a consumer stands: its position per aggregate, and the aggregates waiting at a"
            + " gap.",
    subcommands = {InboxPositionsCommand.class, InboxGapsCommand.class})
final class InboxCommand {

  @Mixin private HelpOption help;
}
