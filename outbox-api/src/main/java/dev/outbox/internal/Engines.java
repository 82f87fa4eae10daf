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
   * @param store the store; the engine subscribes to its commit hand-over, if it has one
   * @param publisher the publisher
   * @param clock the clock
   * @return the engine, not started
   */
  public static Outbox create(
      OutboxOptions options, OutboxStore store, EventPublisher publisher, Clock clock) {
    return new OutboxEngine(options, store, publisher, clock);
  }
}
