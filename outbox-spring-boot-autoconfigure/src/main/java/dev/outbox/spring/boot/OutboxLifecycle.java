package dev.outbox.spring.boot;

import dev.outbox.Outbox;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the outbox when the application context has started and closes it gracefully when the
 * context stops: the batch in flight finishes and every lease is released, so another instance goes
 * on at once. Its phase is below the web server's graceful shutdown, so requests still being served
 * can write events that the outbox then delivers before it stops.
 */
public final class OutboxLifecycle implements SmartLifecycle {

  /** Below {@code WebServerGracefulShutdownLifecycle}'s phase: starts before, stops after it. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Outbox outbox;
  private volatile boolean running;

  /**
   * The lifecycle of an outbox.
   *
   * @param outbox the outbox
   */
  public OutboxLifecycle(Outbox outbox) {
    this.outbox = outbox;
  }

  @Override
  public void start() {
    outbox.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    outbox.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
