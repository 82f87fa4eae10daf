package dev.outbox.hibernate;

import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.internal.OutboxContext;
import dev.outbox.internal.OutboxEngine;

/**
 * An outbox that the persistence unit wakes after each commit, until it is closed. While it runs,
 * and unless {@link OutboxOptions#leaseOnWrite()} is off, the persistence unit writes new rows
 * already leased to it and hands them over after the commit (the fast path).
 */
final class CommitWokenOutbox implements Outbox {

  private final OutboxEngine engine;
  private final OutboxContext context;
  private final OutboxOptions options;
  private final AutoCloseable wakeUpRegistration;
  private AutoCloseable leaseRegistration = () -> {};

  CommitWokenOutbox(OutboxEngine engine, OutboxContext context, OutboxOptions options) {
    this.engine = engine;
    this.context = context;
    this.options = options;
    this.wakeUpRegistration = context.onCommit(engine::wakeUp);
  }

  @Override
  public synchronized void start() {
    boolean wasRunning = engine.isRunning();
    engine.start();
    if (!wasRunning && options.leaseOnWrite() && options.deliveryMode() == DeliveryMode.POLLING) {
      leaseRegistration =
          context.receiveLeases(
              new OutboxContext.LeaseReceiver(
                  options.instanceId(), options.leaseDuration(), engine::publishLeased));
    }
  }

  @Override
  public synchronized void close() {
    closeQuietly(leaseRegistration);
    closeQuietly(wakeUpRegistration);
    engine.close();
  }

  private static void closeQuietly(AutoCloseable registration) {
    try {
      registration.close();
    } catch (Exception e) {
      // removing a callback does not fail
    }
  }

  @Override
  public int runOnce() {
    return engine.runOnce();
  }

  @Override
  public int cleanUpOnce() {
    return engine.cleanUpOnce();
  }

  @Override
  public void wakeUp() {
    engine.wakeUp();
  }

  @Override
  public boolean isRunning() {
    return engine.isRunning();
  }

  @Override
  public OutboxHealth health() {
    return engine.health();
  }

  @Override
  public DeadLetterService deadLetters() {
    return engine.deadLetters();
  }

  @Override
  public String toString() {
    return engine.toString();
  }
}
