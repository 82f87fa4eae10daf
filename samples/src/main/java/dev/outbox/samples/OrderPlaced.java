package dev.outbox.samples;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * An order was placed.
 *
 * @param orderId the order
 * @param customer who ordered
 * @param lines how many lines it was placed with
 * @param total its total
 * @param sequence the order's event number, 1
 */
@EventType("order.placed")
public record OrderPlaced(
    String orderId, String customer, int lines, BigDecimal total, int sequence)
    implements DomainEvent {}
