package dev.outbox.samples.boot;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * An order was placed.
 *
 * @param orderId the order
 * @param customer who placed it
 * @param total its amount
 */
@EventType("order.placed")
public record OrderPlaced(long orderId, String customer, BigDecimal total) implements DomainEvent {}
