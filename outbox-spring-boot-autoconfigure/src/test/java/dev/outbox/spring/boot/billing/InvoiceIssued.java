package dev.outbox.spring.boot.billing;

import dev.outbox.DomainEvent;

/** Billing's own event, sent in the transaction that applied the order event. */
public record InvoiceIssued(String orderId, long step) implements DomainEvent {

  @Override
  public String eventType() {
    return "invoice.issued";
  }
}
