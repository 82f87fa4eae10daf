/**
 * Extension points: the ports the engine is written against.
 *
 * <p>{@link dev.outbox.spi.EventPublisher} is implemented by each broker adapter, {@link
 * dev.outbox.spi.OutboxStore} by the persistence adapter, {@link dev.outbox.spi.EventSerializer} by
 * the Jackson serializer or by the application. These types are stable API for implementers.
 */
package dev.outbox.spi;
