package dev.outbox.testkit.kill;

import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for the fleet's tests: prints its arguments and its ready line, then waits until it
 * is stopped; a SIGTERM prints {@value #CLOSED} in a shutdown hook.
 */
public final class SleepingChild {

  static final String READY = "CHILD READY";
  static final String ARGS = "ARGS ";
  static final String CLOSED = "CHILD CLOSED";

  private SleepingChild() {}

  public static void main(String[] args) throws InterruptedException {
    ChildJvm.exitWithParent();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println(CLOSED + " " + args[0]);
                  System.out.flush();
                  closed.countDown();
                }));
    System.out.println(ARGS + String.join(" ", List.of(args)));
    ChildJvm.printReady(READY, args[0], " (test)");
    closed.await();
  }
}
