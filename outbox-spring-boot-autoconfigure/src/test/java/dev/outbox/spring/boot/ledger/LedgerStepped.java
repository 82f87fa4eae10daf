package dev.outbox.spring.boot.ledger;

import dev.outbox.DomainEvent;

/** One step of a ledger aggregate, numbered from 0 per aggregate. */
public record LedgerStepped(String key, long step) implements DomainEvent {

  @Override
  public String eventType() {
    return "ledger.stepped";
  }
}
