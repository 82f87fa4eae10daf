package dev.outbox.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The commit hand-over: how the writers of a store tell a running outbox in the same JVM that a
 * transaction committed messages. A store offers it through {@link OutboxStore#commitHandOver()};
 * the engine subscribes when it is created and started, and unsubscribes when it is closed.
 *
 * <p>Two things travel through it, both only after the commit:
 *
 * <ul>
 *   <li>a wake-up, so that the processor claims at once instead of waiting for the poll interval;
 *   <li>heads the writer wrote already leased to the {@link LeaseReceiver} (the fast path), with
 *       the messages behind them, published from memory without a claim.
 * </ul>
 *
 * <p>Nothing here is needed for correctness: a store without a hand-over is polled, and a head
 * leased at write whose hand-over never came is claimed again when its lease runs out.
 */
public interface CommitHandOver {

  /**
   * Registers a callback run after each commit that wrote messages going the claimed way.
   *
   * @param listener run on the committing thread; it must be quick and must not throw
   * @return a handle that removes the callback again
   */
  AutoCloseable onCommit(Runnable listener);

  /**
   * Makes a running processor the one that new messages are written leased to, unless another one
   * already is.
   *
   * @param receiver the processor
   * @return a handle that removes it again; does nothing when another receiver was kept
   */
  AutoCloseable receiveLeases(LeaseReceiver receiver);

  /**
   * A processor that takes heads leased at write.
   *
   * @param instanceId the processor's instance id, written as the holder of the leased heads
   * @param lease how long a lease written at commit lasts
   * @param sink takes the committed leased heads
   */
  record LeaseReceiver(String instanceId, Duration lease, LeaseSink sink) {

    /** Checks the fields. */
    public LeaseReceiver {
      Objects.requireNonNull(instanceId, "instanceId");
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(sink, "sink");
    }
  }

  /** Where committed leased heads go. */
  @FunctionalInterface
  interface LeaseSink {

    /**
     * Takes heads a transaction of this JVM wrote leased to the receiver, after it committed.
     *
     * @param heads the heads, each with the messages the transaction wrote behind it
     * @param leaseUntil when their lease runs out, on this JVM's clock
     */
    void committed(List<LeasedHead> heads, Instant leaseUntil);
  }
}
