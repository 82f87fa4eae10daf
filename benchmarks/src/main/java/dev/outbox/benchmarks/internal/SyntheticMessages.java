package dev.outbox.benchmarks.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.benchmarks.internal.BenchAggregate.Happened;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * Messages for the bare-client ceilings, shaped like the relay's: the same aggregate ids, event
 * type and {@value BenchAggregate#PAYLOAD_BYTES}-byte payload as {@link Backlog}, no row headers.
 */
public final class SyntheticMessages {

  private SyntheticMessages() {}

  /**
   * The {@code i}-th message of a backlog.
   *
   * @param aggregateType the aggregate type
   * @param i its index
   * @param aggregates over how many aggregates the backlog is spread
   * @return the message
   */
  public static OutboxMessage message(String aggregateType, long i, int aggregates) {
    String aggregateId = "agg-" + (i % aggregates);
    Happened event = Happened.of(aggregateId, i / aggregates);
    String payload =
        "{\"aggregateId\":\""
            + aggregateId
            + "\",\"sequence\":"
            + event.sequence()
            + ",\"padding\":\""
            + event.padding()
            + "\"}";
    Instant now = Instant.now();
    return new OutboxMessage(
        UUID.randomUUID(),
        i + 1,
        aggregateType,
        aggregateId,
        Happened.TYPE,
        OutboxMessage.JSON,
        payload,
        Map.of(),
        now,
        now,
        0);
  }
}
