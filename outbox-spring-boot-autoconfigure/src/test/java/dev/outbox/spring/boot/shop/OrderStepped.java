package dev.outbox.spring.boot.shop;

import dev.outbox.DomainEvent;

/** One step of an order, numbered from 0. */
public record OrderStepped(String orderId, long step) implements DomainEvent {

  @Override
  public String eventType() {
    return "order.stepped";
  }
}
