package dev.outbox;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One outbox row as the processor, the publishers and the dead-letter API see it. Immutable.
 *
 * @param id the message id: time-ordered (UUIDv7), the broker's message id and the consumers'
 *     idempotency key
 * @param seq the message's place in its aggregate's stream: 1, 2, 3, ... without gaps, in the order
 *     the writing transactions committed; per-aggregate order follows it
 * @param aggregateType the type of the aggregate that raised the event
 * @param aggregateId the id of that aggregate: the ordering and partitioning key
 * @param eventType the logical event name
 * @param contentType the payload's media type, {@code application/json} for the Jackson serializer
 * @param payload the serialized event, exactly as the serializer produced it
 * @param headers metadata sent as broker headers (correlation ids, {@code traceparent}, ...)
 * @param occurredAt when the event happened
 * @param createdAt when the row was written
 * @param attempts how many publish attempts failed so far
 * @param epoch when the aggregate's head was created, in milliseconds since 1970 on the writer's
 *     clock: a head deleted by cleanup and created again starts at seq 1 under a larger epoch, so
 *     that (epoch, seq) only grows per aggregate; 0 for rows written before the epoch existed
 * @param prevSeq the seq of the message of the same aggregate and epoch published before this one,
 *     0 if none: {@code seq - 1} unless messages in between were dead-lettered without a hold and
 *     so will never be published. A consumer applies a message when its position is at or past
 *     {@code prevSeq} and before {@code seq} ({@code dev.outbox.inbox})
 */
public record OutboxMessage(
    UUID id,
    long seq,
    String aggregateType,
    String aggregateId,
    String eventType,
    String contentType,
    String payload,
    Map<String, String> headers,
    Instant occurredAt,
    Instant createdAt,
    int attempts,
    long epoch,
    long prevSeq) {

  /** The content type of JSON payloads. */
  public static final String JSON = "application/json";

  /** Validates the required components and makes the headers an immutable copy. */
  public OutboxMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(occurredAt, "occurredAt");
    Objects.requireNonNull(createdAt, "createdAt");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    if (prevSeq < 0 || prevSeq >= Math.max(seq, 1)) {
      throw new IllegalArgumentException(
          "prevSeq must be >= 0 and < seq, but was " + prevSeq + " with seq " + seq);
    }
  }

  /**
   * A message of epoch 0 whose previous message is {@code seq - 1}: what a store without epochs,
   * and a test, make.
   */
  public OutboxMessage(
      UUID id,
      long seq,
      String aggregateType,
      String aggregateId,
      String eventType,
      String contentType,
      String payload,
      Map<String, String> headers,
      Instant occurredAt,
      Instant createdAt,
      int attempts) {
    this(
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
        attempts,
        0,
        Math.max(0, seq - 1));
  }

  /**
   * The payload as UTF-8 bytes, which is how every adapter sends it.
   *
   * @return a new array
   */
  public byte[] payloadBytes() {
    return payload.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A copy with another attempt count.
   *
   * @param attempts the failed attempts so far
   * @return a new message
   */
  public OutboxMessage withAttempts(int attempts) {
    return copy(headers, attempts, epoch, prevSeq);
  }

  /**
   * A copy with another epoch and previous seq, as the store read them from the message's head.
   *
   * @param epoch the head's epoch
   * @param prevSeq the seq published before this one, 0 if none
   * @return a new message
   */
  public OutboxMessage inStream(long epoch, long prevSeq) {
    return copy(headers, attempts, epoch, prevSeq);
  }

  /**
   * A copy with other headers, e.g. the trace context of the span that publishes it.
   *
   * @param replaced the headers the copy carries
   * @return a new message
   */
  public OutboxMessage withHeaders(Map<String, String> replaced) {
    return copy(replaced, attempts, epoch, prevSeq);
  }

  private OutboxMessage copy(Map<String, String> headers, int attempts, long epoch, long prevSeq) {
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
        attempts,
        epoch,
        prevSeq);
  }

  @Override
  public String toString() {
    return "OutboxMessage[id="
        + id
        + ", seq="
        + seq
        + (prevSeq == seq - 1 ? "" : " (prev " + prevSeq + ")")
        + (epoch == 0 ? "" : ", epoch=" + epoch)
        + ", aggregate="
        + aggregateType
        + '/'
        + aggregateId
        + ", eventType="
        + eventType
        + ", attempts="
        + attempts
        + ']';
  }
}
