package dev.outbox.samples;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;

/**
 * An order was cancelled.
 *
 * @param orderId the order
 * @param reason why
 * @param sequence the order's event number, the last one
 */
@EventType("order.cancelled")
public record OrderCancelled(String orderId, String reason, int sequence) implements DomainEvent {}
