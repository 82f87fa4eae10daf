package dev.outbox;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Base class of an aggregate that announces what happened to it through {@link DomainEvent}s.
 *
 * <p>A plain Java class: entities extend it without any JPA annotation. The pending events are not
 * persistent state; the persistence adapter harvests them when the session flushes, writes them to
 * the outbox in the same transaction, and clears them.
 *
 * <pre>{@code
 * @Entity
 * class Order extends AggregateRoot {
 *   void place() { status = PLACED; registerEvent(new OrderPlaced(id, total)); }
 * }
 * }</pre>
 *
 * <p>The aggregate type on the wire is {@link #aggregateType()} (the simple class name unless
 * overridden); the aggregate id is the entity identifier unless {@link #aggregateId()} is
 * overridden.
 *
 * <p>Not thread-safe, like the entity it is part of.
 */
public abstract class AggregateRoot {

  private transient List<DomainEvent> domainEvents;

  /** Creates an aggregate with no pending events. */
  protected AggregateRoot() {}

  /**
   * Registers an event to be written to the outbox at the next flush of the session that manages
   * this aggregate. Events of one aggregate keep the order in which they were registered.
   *
   * @param event the event, not null
   * @return the event, so that a method can register and return it in one line
   * @param <E> the event type
   */
  protected <E extends DomainEvent> E registerEvent(E event) {
    Objects.requireNonNull(event, "event must not be null");
    if (domainEvents == null) {
      domainEvents = new ArrayList<>(2);
    }
    domainEvents.add(event);
    return event;
  }

  /**
   * The events registered since the last harvest, in registration order.
   *
   * @return a read-only view; empty when there is nothing pending
   */
  public List<DomainEvent> domainEvents() {
    return domainEvents == null ? List.of() : Collections.unmodifiableList(domainEvents);
  }

  /** Forgets every pending event. The persistence adapter calls this once it wrote them. */
  public void clearDomainEvents() {
    if (domainEvents != null) {
      domainEvents.clear();
    }
  }

  /**
   * Moves the pending events of this instance to another instance of the same aggregate, after the
   * target's own pending events. The persistence adapter calls it when {@code merge} copies a
   * detached aggregate onto its managed instance; applications do not need it.
   *
   * @param target the instance that takes over the events
   */
  public final void moveDomainEventsTo(AggregateRoot target) {
    Objects.requireNonNull(target, "target must not be null");
    if (target == this || domainEvents == null || domainEvents.isEmpty()) {
      return;
    }
    for (DomainEvent event : domainEvents) {
      target.registerEvent(event);
    }
    domainEvents.clear();
  }

  /**
   * The aggregate type used for routing (Kafka topic, NATS subject, ...) and stored with each
   * event.
   *
   * @return the simple name of the entity class by default; override for a stable name that
   *     survives class renames
   */
  public String aggregateType() {
    return getClass().getSimpleName();
  }

  /**
   * The aggregate id stored with each event: the key that orders events and partitions them on the
   * broker.
   *
   * @return {@code null} by default, which means "the entity identifier"; override to use another
   *     stable business key. An override must not return {@code null} while the aggregate has
   *     pending events: the flush fails, naming the class, and the transaction rolls back
   */
  public String aggregateId() {
    return null;
  }
}
