package dev.outbox.samples.brokers;

import java.time.Instant;

/**
 * What a consumer took from a broker message: the standard outbox headers ({@code
 * dev.outbox.spi.WireHeaders}) and the payload.
 *
 * @param messageId header {@code outbox-message-id}: the idempotency key
 * @param aggregateId header {@code outbox-aggregate-id}
 * @param eventType header {@code outbox-event-type}
 * @param occurredAt header {@code outbox-occurred-at}
 * @param payload the body, UTF-8
 * @param receivedAt when the consumer got it
 */
public record ReceivedEvent(
    String messageId,
    String aggregateId,
    String eventType,
    Instant occurredAt,
    String payload,
    Instant receivedAt) {}
