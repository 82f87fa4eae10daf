package dev.outbox.jdbc.internal;

import dev.outbox.OutboxMessage;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * One outbox row about to be inserted by the flush.
 *
 * @param seq the row's place in its aggregate's stream; 0 until the head upsert assigned it
 * @param headers the headers as a map, for the message published from memory
 * @param headersJson the same as stored in the {@code headers} column
 * @param epoch the epoch of the row's head; 0 until the head upsert gave it
 */
record OutboxRow(
    UUID id,
    String aggregateType,
    String aggregateId,
    long seq,
    String eventType,
    String contentType,
    String payload,
    Map<String, String> headers,
    String headersJson,
    Instant occurredAt,
    Instant createdAt,
    long epoch) {

  /** The same row at a seq, in its head's epoch. */
  OutboxRow at(long seq, long epoch) {
    return new OutboxRow(
        id,
        aggregateType,
        aggregateId,
        seq,
        eventType,
        contentType,
        payload,
        headers,
        headersJson,
        occurredAt,
        createdAt,
        epoch);
  }

  /** The key of the row's aggregate, as {@link HeadUpsert#key}. */
  String aggregateKey() {
    return HeadUpsert.key(aggregateType, aggregateId);
  }

  /**
   * The message the processor publishes from memory.
   *
   * @param prevSeq the seq published before it, 0 if none
   */
  OutboxMessage message(long prevSeq) {
    return new OutboxMessage(
        id,
        seq,
        aggregateType,
        aggregateId,
        eventType,
        contentType,
        payload,
        headers,
        occurredAt,
        createdAt,
        0,
        epoch,
        prevSeq);
  }
}
