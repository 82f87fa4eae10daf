package dev.outbox.hibernate;

import dev.outbox.DeadLetterService;
import dev.outbox.Outbox;

/** An outbox that the persistence unit wakes after each commit, until it is closed. */
final class CommitWokenOutbox implements Outbox {

  private final Outbox engine;
  private final AutoCloseable wakeUpRegistration;

  CommitWokenOutbox(Outbox engine, AutoCloseable wakeUpRegistration) {
    this.engine = engine;
    this.wakeUpRegistration = wakeUpRegistration;
  }

  @Override
  public void start() {
    engine.start();
  }

  @Override
  public void close() {
    try {
      wakeUpRegistration.close();
    } catch (Exception e) {
      // removing a listener from a list does not fail
    }
    engine.close();
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
  public DeadLetterService deadLetters() {
    return engine.deadLetters();
  }

  @Override
  public String toString() {
    return engine.toString();
  }
}
