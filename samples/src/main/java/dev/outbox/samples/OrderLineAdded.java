package dev.outbox.samples;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * A line was added to an open order: raised by a change to a child entity only.
 *
 * @param orderId the order
 * @param lineNo the new line's number
 * @param sku the article
 * @param quantity how many
 * @param unitPrice the price of one
 * @param sequence the order's event number
 */
@EventType("order.line-added")
public record OrderLineAdded(
    String orderId, int lineNo, String sku, int quantity, BigDecimal unitPrice, int sequence)
    implements DomainEvent {}
