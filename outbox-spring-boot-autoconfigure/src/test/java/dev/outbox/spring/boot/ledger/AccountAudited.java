package dev.outbox.spring.boot.ledger;

/** An in-process event: not a DomainEvent, so it never goes through the outbox. */
public record AccountAudited(String owner) {}
