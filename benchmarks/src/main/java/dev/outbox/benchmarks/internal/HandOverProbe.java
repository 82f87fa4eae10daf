package dev.outbox.benchmarks.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.hibernate.internal.OutboxContext;
import dev.outbox.spi.LeasedHead;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.hibernate.SessionFactory;

/**
 * Notes which messages a commit handed to the processor of this JVM already leased (the fast path),
 * so that {@link TimingPublisher} can tell them from messages the processor read from the table (a
 * claim, or the read-on of a record). It sits in the hand-over itself: the lease receiver the
 * started outbox registered with the persistence unit is wrapped, every message handed over is
 * noted, and the heads go on to the outbox unchanged. A message counts as published from memory
 * only if the very object handed over was published: a head handed over but released unsent (its
 * lease too short, the queue full) is read again from the table, as a new object, and counts as
 * claimed.
 *
 * <p>The receiver is a private field of {@link OutboxContext}, read by reflection: the benchmarks
 * measure {@code HibernateOutbox.create} as applications use it rather than an outbox assembled by
 * hand. When the field cannot be read, {@link #attach} says why and the split is not measured.
 */
final class HandOverProbe implements AutoCloseable {

  private final AtomicReference<OutboxContext.LeaseReceiver> slot;
  private final OutboxContext.LeaseReceiver original;
  private final OutboxContext.LeaseReceiver wrapped;
  private final Map<UUID, OutboxMessage> handedOver = new ConcurrentHashMap<>();

  private HandOverProbe(
      AtomicReference<OutboxContext.LeaseReceiver> slot, OutboxContext.LeaseReceiver original) {
    this.slot = slot;
    this.original = original;
    BiConsumer<List<LeasedHead>, Instant> sink =
        (heads, leaseUntil) -> {
          for (LeasedHead head : heads) {
            head.messages().forEach(message -> handedOver.put(message.id(), message));
          }
          original.sink().accept(heads, leaseUntil);
        };
    this.wrapped = new OutboxContext.LeaseReceiver(original.instanceId(), original.lease(), sink);
  }

  /**
   * Wraps the lease receiver of a started outbox.
   *
   * @param emf the persistence unit the outbox was created on
   * @return the probe, or {@code null} (with the reason printed) when the receiver could not be
   *     reached
   */
  @SuppressWarnings("unchecked")
  static HandOverProbe attach(SessionFactory emf) {
    try {
      OutboxContext context = OutboxContext.of(emf);
      Field field = OutboxContext.class.getDeclaredField("leaseReceiver");
      field.setAccessible(true);
      AtomicReference<OutboxContext.LeaseReceiver> slot =
          (AtomicReference<OutboxContext.LeaseReceiver>) field.get(context);
      OutboxContext.LeaseReceiver original = slot.get();
      if (original == null) {
        System.out.println("    fast-path split not measured: no lease receiver registered");
        return null;
      }
      HandOverProbe probe = new HandOverProbe(slot, original);
      if (!slot.compareAndSet(original, probe.wrapped)) {
        System.out.println("    fast-path split not measured: the lease receiver changed");
        return null;
      }
      return probe;
    } catch (ReflectiveOperationException | RuntimeException e) {
      System.out.println("    fast-path split not measured: " + e);
      return null;
    }
  }

  /**
   * Whether this very message object was handed over at commit; forgets it.
   *
   * @param message a published message
   * @return true for the fast path
   */
  boolean takeHandedOver(OutboxMessage message) {
    OutboxMessage noted = handedOver.get(message.id());
    if (noted == null) {
      return false;
    }
    handedOver.remove(message.id(), noted);
    return noted == message;
  }

  /** Puts the outbox's own receiver back, so that closing the outbox unregisters it. */
  @Override
  public void close() {
    slot.compareAndSet(wrapped, original);
  }
}
