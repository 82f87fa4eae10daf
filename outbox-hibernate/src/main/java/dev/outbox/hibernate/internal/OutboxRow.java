package dev.outbox.hibernate.internal;

import dev.outbox.OutboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * One outbox row about to be inserted by the flush.
 *
 * @param headers the headers as a map, for the message published from memory
 * @param headersJson the same as stored in the {@code headers} column
 * @param claimedBy the processor the row is written leased to, or {@code null} for a plain row
 * @param claimedUntil when that lease runs out, or {@code null}
 */
record OutboxRow(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String contentType,
    String payload,
    Map<String, String> headers,
    String headersJson,
    Instant occurredAt,
    Instant createdAt,
    String claimedBy,
    Instant claimedUntil) {

  /** The same row, written leased to a processor. */
  OutboxRow leasedTo(String instanceId, Instant until) {
    return new OutboxRow(
        id,
        aggregateType,
        aggregateId,
        eventType,
        contentType,
        payload,
        headers,
        headersJson,
        occurredAt,
        createdAt,
        instanceId,
        until);
  }

  /**
   * The message the processor publishes from memory. Its position is not known before the insert
   * and nothing downstream needs it: it is 0.
   */
  OutboxMessage message() {
    return new OutboxMessage(
        id,
        0,
        aggregateType,
        aggregateId,
        eventType,
        contentType,
        payload,
        headers,
        occurredAt,
        createdAt,
        0);
  }
}
