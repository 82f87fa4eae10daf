package dev.outbox.rabbitmq.inbox;

import dev.outbox.DomainEvent;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spi.EventSerializer;
import dev.outbox.testkit.kill.BoundedWriter;
import java.util.List;

/**
 * The load of {@link dev.outbox.rabbitmq.RabbitMqInboxKillIT}: a {@link BoundedWriter} whose
 * transactions send {@link Stepped} events through {@link JdbcOutbox#inTransaction}, numbered 1, 2,
 * 3, ... per aggregate in commit order, as the outbox numbers their seq.
 */
public final class OutboxWriter {

  /**
   * The event: the aggregate's n-th, from 1.
   *
   * @param aggregateId the aggregate
   * @param number the event's number within its aggregate
   */
  public record Stepped(String aggregateId, int number) implements DomainEvent {

    /** The event type on the wire. */
    public static final String TYPE = "Stepped";

    @Override
    public String eventType() {
      return TYPE;
    }
  }

  /** Writes {@link Stepped} as JSON, so that the outbox needs no JSON library. */
  public static final EventSerializer SERIALIZER =
      event -> {
        Stepped stepped = (Stepped) event;
        return "{\"aggregateId\":\""
            + stepped.aggregateId()
            + "\",\"number\":"
            + stepped.number()
            + "}";
      };

  private OutboxWriter() {}

  /**
   * A writer, not started.
   *
   * @param outbox the outbox the events are sent through
   * @param aggregateType the aggregate type of every event
   * @param aggregateIds the aggregates, shared out among the threads
   * @param threads how many writer threads
   * @param maxEventsPerAggregate at most this many events of one aggregate per transaction
   * @return the writer
   */
  public static BoundedWriter create(
      JdbcOutbox outbox,
      String aggregateType,
      List<String> aggregateIds,
      int threads,
      int maxEventsPerAggregate) {
    return new BoundedWriter(
        "outbox-writer",
        aggregateIds,
        threads,
        maxEventsPerAggregate,
        steps ->
            outbox.inTransaction(
                connection -> {
                  for (BoundedWriter.Step step : steps) {
                    for (int s = 1; s <= step.events(); s++) {
                      outbox.send(
                          connection,
                          aggregateType,
                          step.aggregateId(),
                          new Stepped(step.aggregateId(), step.committedBefore() + s));
                    }
                  }
                  return null;
                }));
  }
}
