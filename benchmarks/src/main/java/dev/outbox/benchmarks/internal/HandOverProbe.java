package dev.outbox.benchmarks.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.CommitHandOver;
import dev.outbox.spi.LeasedHead;
import dev.outbox.spi.OutboxStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Notes which messages a commit handed to the processor of this JVM already leased (the fast path),
 * so that {@link TimingPublisher} can tell them from messages the processor read from the table (a
 * claim, or the read-on of a record). It sits in the hand-over itself: the store the outbox runs on
 * is the persistence unit's own, seen through a proxy whose {@link CommitHandOver} wraps the lease
 * receiver the outbox registers; every message handed over is noted, and the heads go on to the
 * outbox unchanged. A message counts as published from memory only if the very object handed over
 * was published: a head handed over but released unsent (its lease too short, the queue full) is
 * read again from the table, as a new object, and counts as claimed.
 */
final class HandOverProbe {

  private final Map<UUID, OutboxMessage> handedOver = new ConcurrentHashMap<>();

  /**
   * The store seen through the probe: the same store, whose hand-over notes what it hands over.
   *
   * @param store the persistence unit's store
   * @return the store to create the outbox on
   */
  OutboxStore watch(OutboxStore store) {
    return (OutboxStore)
        Proxy.newProxyInstance(
            HandOverProbe.class.getClassLoader(),
            new Class<?>[] {OutboxStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("commitHandOver")) {
                return store.commitHandOver().map(this::watch);
              }
              try {
                return method.invoke(store, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private CommitHandOver watch(CommitHandOver handOver) {
    return new CommitHandOver() {
      @Override
      public AutoCloseable onCommit(Runnable listener) {
        return handOver.onCommit(listener);
      }

      @Override
      public AutoCloseable receiveLeases(LeaseReceiver receiver) {
        return handOver.receiveLeases(
            new LeaseReceiver(
                receiver.instanceId(),
                receiver.lease(),
                (heads, leaseUntil) -> {
                  for (LeasedHead head : heads) {
                    head.messages().forEach(message -> handedOver.put(message.id(), message));
                  }
                  receiver.sink().committed(heads, leaseUntil);
                }));
      }
    };
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
}
