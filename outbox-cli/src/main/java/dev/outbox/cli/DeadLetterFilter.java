package dev.outbox.cli;

import dev.outbox.DeadLetterQuery;
import java.time.Instant;
import picocli.CommandLine.Option;

/** Which dead letters: every filter is optional, and they combine. */
final class DeadLetterFilter {

  @Option(names = "--event-type", paramLabel = "TYPE", description = "Only this event type.")
  private String eventType;

  @Option(
      names = "--aggregate-type",
      paramLabel = "TYPE",
      description = "Only this aggregate type.")
  private String aggregateType;

  @Option(names = "--aggregate-id", paramLabel = "ID", description = "Only this aggregate id.")
  private String aggregateId;

  @Option(
      names = "--error",
      paramLabel = "TEXT",
      description = "Only those whose last error contains TEXT (case ignored).")
  private String error;

  @Option(
      names = "--since",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description =
          "Only dead-lettered at or after TIME: 2026-11-25T10:00:00Z, 2026-11-25 (UTC), or how"
              + " long ago (30m, 2h, 7d).")
  private Instant since;

  @Option(
      names = "--until",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description = "Only dead-lettered before TIME (same forms as --since).")
  private Instant until;

  /** Whether no filter was given. */
  boolean isEmpty() {
    return eventType == null
        && aggregateType == null
        && aggregateId == null
        && error == null
        && since == null
        && until == null;
  }

  /** The query of these filters, first page; a filter not given leaves it open. */
  DeadLetterQuery query() {
    return DeadLetterQuery.all()
        .aggregate(aggregateType, aggregateId)
        .eventType(eventType)
        .errorContains(error)
        .since(since)
        .until(until);
  }
}
