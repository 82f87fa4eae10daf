package com.example.orders;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;
import java.util.UUID;

/**
 * An order was placed: the event, serialized to JSON by the outbox.
 *
 * @param orderId the order
 * @param total what it costs
 */
@EventType("order.placed") // the name on the wire (the RabbitMQ routing key); default: OrderPlaced
public record OrderPlaced(UUID orderId, BigDecimal total) implements DomainEvent {}
