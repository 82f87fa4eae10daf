package dev.outbox.hibernate.internal;

import dev.outbox.AggregateRoot;

/** An aggregate with pending events, and the identifier Hibernate knows it by. */
record AggregateRef(AggregateRoot aggregate, Object entityId) {}
