package dev.outbox.internal;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A wake-up that is never lost: a signal that arrives while nobody waits is kept until the next
 * wait, which then returns at once.
 */
final class WakeSignal {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private boolean pending;

  void signal() {
    lock.lock();
    try {
      pending = true;
      signalled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until signalled or until the timeout passes, and consumes the signal.
   *
   * @return whether a signal arrived
   */
  boolean await(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      long nanos = timeout.toNanos();
      while (!pending && nanos > 0) {
        nanos = signalled.awaitNanos(nanos);
      }
      boolean woken = pending;
      pending = false;
      return woken;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets a pending signal; the cycle about to run will see the new messages anyway. */
  void clear() {
    lock.lock();
    try {
      pending = false;
    } finally {
      lock.unlock();
    }
  }
}
