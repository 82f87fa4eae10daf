package dev.outbox.hibernate.internal;

import java.time.Instant;
import java.util.UUID;

/** One outbox row about to be inserted by the flush. */
record OutboxRow(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    String contentType,
    String payload,
    String headers,
    Instant occurredAt,
    Instant createdAt) {}
