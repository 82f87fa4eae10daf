/**
 * The public API of the outbox: what an application touches.
 *
 * <p>Aggregates extend {@link dev.outbox.AggregateRoot} and register {@link
 * dev.outbox.DomainEvent}s; the persistence adapter writes them to the outbox table in the same
 * transaction as the business change, and the processor delivers them afterwards through an {@link
 * dev.outbox.spi.EventPublisher}. {@link dev.outbox.OutboxOptions} tunes everything in code.
 *
 * <p>Everything in this package is public API. Extension points live in {@code dev.outbox.spi};
 * {@code dev.outbox.internal} is not API.
 */
package dev.outbox;
