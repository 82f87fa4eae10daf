package dev.outbox.spi;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link CommitHandOver} of a store whose writers run in this JVM: the store holds one, its
 * writers ask it who takes leases before they write, and tell it after the commit. Thread-safe.
 */
public final class LocalCommitHandOver implements CommitHandOver {

  private static final Logger LOG = LoggerFactory.getLogger(LocalCommitHandOver.class);

  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<LeaseReceiver> leaseReceiver = new AtomicReference<>();

  /** Creates a hand-over with nobody subscribed. */
  public LocalCommitHandOver() {}

  @Override
  public AutoCloseable onCommit(Runnable listener) {
    commitListeners.add(listener);
    return () -> commitListeners.remove(listener);
  }

  @Override
  public AutoCloseable receiveLeases(LeaseReceiver receiver) {
    if (!leaseReceiver.compareAndSet(null, receiver)) {
      return () -> {};
    }
    return () -> leaseReceiver.compareAndSet(receiver, null);
  }

  /**
   * The processor that new messages may be written leased to, read by a writer before it writes.
   *
   * @return the receiver, or {@code null} when no processor takes leases
   */
  public LeaseReceiver leaseReceiver() {
    return leaseReceiver.get();
  }

  /**
   * Tells the subscribers that a transaction committed messages that no lease carries: the
   * processors claim at once. A listener that throws is logged; the processor polls instead.
   */
  public void committed() {
    for (Runnable listener : commitListeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        LOG.warn("An outbox commit listener failed; the processor will poll instead", e);
      }
    }
  }

  /**
   * Hands heads a committed transaction wrote leased to the receiver it read before writing.
   *
   * @param receiver the receiver the heads were leased to
   * @param heads the heads with the messages behind them
   * @param leaseUntil when their lease runs out, on this JVM's clock
   */
  public void handOver(LeaseReceiver receiver, List<LeasedHead> heads, Instant leaseUntil) {
    if (heads.isEmpty()) {
      return;
    }
    try {
      receiver.sink().committed(heads, leaseUntil);
    } catch (RuntimeException e) {
      LOG.warn(
          "Handing {} heads to outbox {} after the commit failed; they are claimed when their"
              + " lease runs out",
          heads.size(),
          receiver.instanceId(),
          e);
    }
  }
}
