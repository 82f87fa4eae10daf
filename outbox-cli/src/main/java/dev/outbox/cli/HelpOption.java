package dev.outbox.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help}: the usage of the command it is mixed into, exit code 0. The top
 * command has it from picocli's standard help options; every subcommand mixes this in.
 */
final class HelpOption {

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this command's usage and exit.")
  private boolean requested;
}
