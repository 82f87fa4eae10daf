package dev.outbox.samples.boot;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;

/**
 * An order was cancelled.
 *
 * @param orderId the order
 * @param reason why
 */
@EventType("order.cancelled")
public record OrderCancelled(long orderId, String reason) implements DomainEvent {}
