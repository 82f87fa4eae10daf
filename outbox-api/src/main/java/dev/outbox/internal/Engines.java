package dev.outbox.internal;

import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;

/** Creates the engine behind {@link Outbox#create}. Not API: call {@link Outbox#create}. */
public final class Engines {

  private Engines() {}

  /**
   * The engine on a store and a publisher.
   *
   * @param options the options
   * @param instanceIdSet whether the options' instance id was set rather than generated: a set one
   *     that a running outbox of this JVM holds fails the start, a generated one gets a suffix
   * @param store the store; the engine subscribes to its commit hand-over, if it has one
   * @param publisher the publisher
   * @param clock the clock
   * @return the engine, not started
   */
  public static Outbox create(
      OutboxOptions options,
      boolean instanceIdSet,
      OutboxStore store,
      EventPublisher publisher,
      Clock clock) {
    return new OutboxEngine(options, instanceIdSet, store, publisher, clock);
  }
}
