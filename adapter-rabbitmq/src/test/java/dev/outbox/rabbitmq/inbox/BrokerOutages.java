package dev.outbox.rabbitmq.inbox;

import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Takes the broker away from the outbox's publisher a few times, on a schedule, through the {@link
 * TcpProxy} the publisher connects through ({@link TcpProxy#down()}: every connection cut, new ones
 * reset), and brings it back ({@link TcpProxy#up()}). The shared broker itself is never touched.
 * The schedule runs on a thread of its own; the sleeps in it are the outages' timing, not a wait
 * for anything.
 */
public final class BrokerOutages {

  /**
   * One outage as it happened.
   *
   * @param startedAfter when, after the schedule's start
   * @param lasted how long the broker was away
   */
  public record Outage(Duration startedAfter, Duration lasted) {}

  /**
   * One planned outage.
   *
   * @param after when, after the schedule's start
   * @param duration how long
   */
  public record Planned(Duration after, Duration duration) {}

  private final TcpProxy proxy;
  private final List<Planned> plan;
  private final List<Outage> done = new CopyOnWriteArrayList<>();
  private Thread thread;

  /**
   * A schedule, not started.
   *
   * @param proxy the proxy in front of the broker
   * @param plan the outages, in order of their start
   */
  public BrokerOutages(TcpProxy proxy, List<Planned> plan) {
    this.proxy = proxy;
    this.plan = List.copyOf(plan);
  }

  /** Starts the schedule now. */
  public void start() {
    long start = System.nanoTime();
    thread =
        new Thread(
            () -> {
              try {
                for (Planned outage : plan) {
                  sleepUntil(start + outage.after().toNanos());
                  long down = System.nanoTime();
                  proxy.down();
                  sleepUntil(down + outage.duration().toNanos());
                  proxy.up();
                  done.add(
                      new Outage(
                          Duration.ofNanos(down - start),
                          Duration.ofNanos(System.nanoTime() - down)));
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                proxy.up();
              }
            },
            "broker-outages");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Stops the schedule (the broker comes back if it is away) and waits for its thread.
   *
   * @param timeout how long to wait for the thread
   */
  public void stop(Duration timeout) throws InterruptedException {
    if (thread != null) {
      thread.interrupt();
      thread.join(timeout.toMillis());
      if (thread.isAlive()) {
        throw new IllegalStateException("The outage schedule did not stop within " + timeout);
      }
    }
    proxy.up();
  }

  /**
   * Waits until every planned outage is over.
   *
   * @param timeout how long at most
   * @return whether they are
   */
  public boolean awaitDone(Duration timeout) throws InterruptedException {
    if (thread != null) {
      thread.join(timeout.toMillis());
    }
    return done.size() == plan.size();
  }

  /**
   * The outages so far.
   *
   * @return a copy, in order
   */
  public List<Outage> outages() {
    return new ArrayList<>(done);
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }
}
