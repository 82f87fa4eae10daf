package dev.outbox.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;

/**
 * The {@code outbox} command: {@code status}, {@code dead-letters list|show|replay|purge} on the
 * outbox tables, and {@code inbox positions|gaps} on a consumer's inbox tables, of a database given
 * by a JDBC URL.
 *
 * <pre>
 * export OUTBOX_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/orders OUTBOX_JDBC_USER=ops
 * outbox status --password-env PGPASSWORD
 * outbox dead-letters list --event-type order.placed --since 2h
 * outbox dead-letters replay --error "timed out" --dry-run
 * outbox inbox gaps --source billing
 * </pre>
 */
@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    versionProvider = OutboxCli.Version.class,
    description = {
      "Watches an outbox's backlog and acts on its dead letters, on the database with a JDBC URL;"
          + " no application needed.",
      "Every command takes --url (or OUTBOX_JDBC_URL), --user (or OUTBOX_JDBC_USER) and"
          + " --password-env, and --help for its own usage (outbox dead-letters replay --help)."
    },
    subcommands = {
      StatusCommand.class,
      DeadLettersCommand.class,
      InboxCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:unexpected failure (the stack trace with --verbose)",
      "2:bad arguments",
      "3:database unreachable or login refused",
      "4:outbox or inbox tables missing",
      "5:no dead letter with that id",
      "6:--expect differs from the count; nothing changed"
    })
public final class OutboxCli {

  @Option(
      names = "--verbose",
      scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of a failure.")
  private boolean verbose;

  private OutboxCli() {}

  /**
   * Runs the tool and exits with its exit code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    Context context =
        new Context(System.getenv(), out, err, Clock.systemUTC(), System.console() != null);
    System.exit(run(context, args));
  }

  /** Runs the tool in this JVM and returns its exit code; nothing else is written. */
  static int run(Context context, String... args) {
    CommandLine cli = commandLine(context);
    try {
      return cli.execute(args);
    } finally {
      context.out().flush();
      context.err().flush();
    }
  }

  /** The command tree on the context, with the tool's error handling; nothing run yet. */
  static CommandLine commandLine(Context context) {
    OutboxCli root = new OutboxCli();
    CommandLine cli = new CommandLine(root, new Factory(context, root));
    cli.setOut(context.out());
    cli.setErr(context.err());
    cli.setParameterExceptionHandler(
        (failure, arguments) -> {
          if (givesAPassword(context, arguments)) {
            context
                .err()
                .println(
                    "outbox: there is no --password option, so that a password never lands in"
                        + " the shell's history or the process list: put it in an environment"
                        + " variable and name that with --password-env");
            return Exit.USAGE;
          }
          context.err().println("outbox: " + context.mask(failure.getMessage()));
          context.err().println(usageHint(failure.getCommandLine()));
          return Exit.USAGE;
        });
    cli.setExecutionExceptionHandler(
        (failure, commandLine, parseResult) -> report(context, root, failure, commandLine));
    return cli;
  }

  private static int report(
      Context context, OutboxCli root, Exception failure, CommandLine commandLine) {
    PrintWriter err = context.err();
    if (failure instanceof CliException known) {
      err.println("outbox: " + context.mask(known.getMessage()));
      if (known.exitCode() == Exit.USAGE) {
        err.println(usageHint(commandLine));
      }
      printStack(context, root, failure);
      return known.exitCode();
    }
    err.println(
        "outbox: "
            + context.mask(failure.getClass().getSimpleName() + ": " + Messages.firstLine(failure))
            + (root.verbose ? "" : " (--verbose prints the stack trace)"));
    printStack(context, root, failure);
    return Exit.FAILURE;
  }

  /** Whether the arguments try {@code --password}; its value is masked from then on. */
  private static boolean givesAPassword(Context context, String[] arguments) {
    for (int i = 0; i < arguments.length; i++) {
      if (arguments[i].equals("--password") && i + 1 < arguments.length) {
        context.secrets().add(arguments[i + 1]);
        return true;
      }
      if (arguments[i].startsWith("--password=")) {
        context.secrets().add(arguments[i].substring("--password=".length()));
        return true;
      }
    }
    return false;
  }

  private static String usageHint(CommandLine commandLine) {
    return "Run '" + commandLine.getCommandSpec().qualifiedName() + " --help' for usage.";
  }

  private static void printStack(Context context, OutboxCli root, Exception failure) {
    if (root.verbose) {
      StringWriter trace = new StringWriter();
      failure.printStackTrace(new PrintWriter(trace));
      context.err().print(context.mask(trace.toString()));
    }
  }

  /** Creates commands, mixins and converters with the context they need. */
  private record Factory(Context context, OutboxCli root) implements CommandLine.IFactory {

    @Override
    public <K> K create(Class<K> type) throws Exception {
      if (type == OutboxCli.class) {
        return type.cast(root);
      }
      try {
        Constructor<K> withContext = type.getDeclaredConstructor(Context.class);
        return withContext.newInstance(context);
      } catch (NoSuchMethodException none) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }

  /** The version of the jar, from its manifest. */
  static final class Version implements IVersionProvider {

    @Override
    public String[] getVersion() {
      String version = OutboxCli.class.getPackage().getImplementationVersion();
      return new String[] {"outbox " + (version == null ? "(development build)" : version)};
    }
  }
}
