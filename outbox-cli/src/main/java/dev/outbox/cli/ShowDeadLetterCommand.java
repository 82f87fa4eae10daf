package dev.outbox.cli;

import dev.outbox.DeadLetter;
import dev.outbox.OutboxMessage;
import java.io.PrintWriter;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code outbox dead-letters show ID}: one dead letter with its payload, headers and error. */
@Command(name = "show", description = "Shows one dead letter: payload, headers and last error.")
final class ShowDeadLetterCommand implements Callable<Integer> {

  private final Context context;

  @Mixin private DatabaseOptions database;
  @Mixin private HelpOption help;

  @Parameters(
      paramLabel = "ID",
      converter = MessageIdConverter.class,
      description = "The message id.")
  private UUID id;

  @Option(names = "--json", description = "One JSON object.")
  private boolean json;

  ShowDeadLetterCommand(Context context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    DeadLetter letter =
        database
            .open()
            .findDeadLetter(id)
            .orElseThrow(
                () ->
                    new CliException(
                        Exit.NOT_FOUND,
                        "No dead letter with id " + id + " in " + database.deadLetterTable()));
    if (json) {
      context.out().println(Json.line(Json.full(letter)));
    } else {
      print(letter, context.out());
    }
    return Exit.OK;
  }

  private static void print(DeadLetter letter, PrintWriter out) {
    OutboxMessage message = letter.message();
    String format = "%-15s %s%n";
    out.printf(format, "id", message.id());
    out.printf(format, "event type", message.eventType());
    out.printf(format, "aggregate", message.aggregateType() + "/" + message.aggregateId());
    out.printf(format, "seq", message.seq());
    out.printf(format, "occurred at", message.occurredAt());
    out.printf(format, "written at", message.createdAt());
    out.printf(format, "dead-lettered", letter.deadLetteredAt());
    out.printf(format, "attempts", message.attempts());
    out.printf(format, "last error", letter.lastError() == null ? "-" : letter.lastError());
    out.printf(format, "content type", message.contentType());
    out.println("headers");
    message.headers().forEach((name, value) -> out.printf("  %s: %s%n", name, value));
    out.println("payload");
    out.println(message.payload());
  }
}
