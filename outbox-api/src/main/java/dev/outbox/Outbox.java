package dev.outbox;

import dev.outbox.internal.Engines;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.time.Clock;

/**
 * The running outbox: the processor that delivers pending messages, the cleanup of published ones,
 * and the dead letters. Start and stop are explicit and idempotent.
 *
 * <pre>{@code
 * Outbox outbox = HibernateOutbox.create(emf, publisher);   // or from OutboxModule
 * outbox.start();
 * ...
 * outbox.close();   // lets the batch in flight finish, then closes the publisher
 * }</pre>
 */
public interface Outbox extends AutoCloseable {

  /**
   * An outbox on a store and a publisher, with the system clock.
   *
   * @param options the options
   * @param store where messages are claimed and recorded
   * @param publisher the broker adapter; closed by {@link #close()}
   * @return a new outbox, not started
   */
  static Outbox create(OutboxOptions options, OutboxStore store, EventPublisher publisher) {
    return create(options, store, publisher, Clock.systemUTC());
  }

  /**
   * An outbox with a clock of its own, for tests.
   *
   * @param options the options
   * @param store where messages are claimed and recorded
   * @param publisher the broker adapter; closed by {@link #close()}
   * @param clock the clock of leases, retries and cleanup
   * @return a new outbox, not started
   */
  static Outbox create(
      OutboxOptions options, OutboxStore store, EventPublisher publisher, Clock clock) {
    return Engines.create(options, options.instanceIdSet(), store, publisher, clock);
  }

  /**
   * Starts the processor and the cleanup schedule on threads of their own. Calling it again does
   * nothing. From here until {@link #close()} the outbox holds its {@linkplain
   * OutboxOptions#instanceId() instance id} in this JVM: when another running outbox holds a it
   * already, it runs under the id with a suffix ({@code -2}), which {@link #health()} shows and a
   * log line explains (a warning when the id was set).
   *
   * @throws IllegalStateException when the outbox was closed
   */
  void start();

  /**
   * Stops the processor and cleanup, lets the batch in flight finish within {@link
   * OutboxOptions#shutdownTimeout()}, closes the publisher, and frees the instance id for another
   * outbox of this JVM. Calling it again does nothing.
   */
  @Override
  void close();

  /**
   * Runs one cycle on the calling thread: claim a batch, publish it, record the outcomes.
   *
   * @return how many messages were claimed
   * @throws IllegalStateException when the outbox was closed
   */
  int runOnce();

  /**
   * Runs cleanup once on the calling thread.
   *
   * @return how many published messages were deleted
   */
  int cleanUpOnce();

  /**
   * Tells the processor that new messages were committed, so that it claims at once instead of
   * waiting for the poll interval. Cheap; the persistence adapter calls it after each commit that
   * wrote outbox rows.
   */
  void wakeUp();

  /**
   * Whether the processor runs.
   *
   * @return {@code true} between {@link #start()} and {@link #close()}
   */
  boolean isRunning();

  /**
   * A snapshot for a health endpoint: running or not, what waits and for how long, dead letters,
   * and the last error of this instance. Reads the store (two indexed counts); call it every few
   * seconds at most.
   *
   * @return the snapshot; never throws, a store that cannot be read shows as {@code pending = -1}
   *     and as the last error
   */
  OutboxHealth health();

  /**
   * The dead letters of this outbox.
   *
   * @return the service to list, count, replay and purge them
   */
  DeadLetterService deadLetters();
}
