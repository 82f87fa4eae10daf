package dev.outbox.testkit.kill;

import java.lang.management.ManagementFactory;

/**
 * The child's side of a {@link JvmFleet}: what the main class of a killable process calls. It ends
 * with its parent, and prints its ready line in the form the fleet reads.
 */
public final class ChildJvm {

  private ChildJvm() {}

  /**
   * Halts this JVM (exit value 3) when the JVM that started it ends, whatever ends it, so that no
   * child outlives its test.
   */
  public static void exitWithParent() {
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
  }

  /**
   * Prints the ready line on standard output: {@code <ready> <instanceId> pid <pid> after <uptime>
   * ms<detail> at <epoch millis>}; the fleet counts the process as running from that time on.
   *
   * @param ready the start of the line, the fleet's {@link JvmFleet.Builder#readyLine(String)}
   * @param instanceId the instance id the fleet gave this process
   * @param detail what to add after the uptime, {@code " (warm-up 300 ms)"} for example, or empty
   */
  public static void printReady(String ready, String instanceId, String detail) {
    System.out.println(
        ready
            + " "
            + instanceId
            + " pid "
            + ProcessHandle.current().pid()
            + " after "
            + ManagementFactory.getRuntimeMXBean().getUptime()
            + " ms"
            + detail
            + " at "
            + System.currentTimeMillis());
    System.out.flush();
  }

  /** The time in a ready line, or 0 when the line is not complete. */
  static long readyAt(String line) {
    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
  }
}
