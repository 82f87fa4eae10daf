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
    int attempts) {

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
        attempts);
  }

  /**
   * A copy with other headers, e.g. the trace context of the span that publishes it.
   *
   * @param replaced the headers the copy carries
   * @return a new message
   */
  public OutboxMessage withHeaders(Map<String, String> replaced) {
    return new OutboxMessage(
        id,
        seq,
        aggregateType,
        aggregateId,
        eventType,
        contentType,
        payload,
        replaced,
        occurredAt,
        createdAt,
        attempts);
  }

  @Override
  public String toString() {
    return "OutboxMessage[id="
        + id
        + ", seq="
        + seq
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
