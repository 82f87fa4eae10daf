package dev.outbox.samples;

import java.io.PrintStream;

/**
 * The runnable orders demo. Places orders from several threads, lets the outbox deliver their
 * events to the broker picked by {@code --broker}, consumes them with the broker's own client and
 * prints one summary line. {@code --help} lists the options.
 *
 * <p>Exit codes: 0 when every event arrived and none out of order, 1 when something is missing or
 * out of order (or the run failed), 2 for bad input or an unreachable server, with one line on
 * standard error saying what is wrong and how to fix it.
 */
public final class OrdersDemo {

  private OrdersDemo() {}

  /**
   * Runs the demo and exits with its exit code.
   *
   * @param args the command line, see {@link DemoArguments#USAGE}
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the demo in this JVM.
   *
   * @param args the command line
   * @param out where progress and the summary line go
   * @param err where the one error line goes
   * @return the exit code: 0 passed, 1 missing or out-of-order events or a failed run, 2 bad input
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (System.getProperty("org.jboss.logging.provider") == null) {
      System.setProperty("org.jboss.logging.provider", "slf4j");
    }
    try {
      DemoArguments arguments = DemoArguments.parse(args);
      if (arguments.help()) {
        out.print(DemoArguments.USAGE);
        return 0;
      }
      Summary summary = new Demo(arguments, out).run();
      out.println(summary.line());
      return summary.ok() ? 0 : 1;
    } catch (SetupException e) {
      err.println("error: " + e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      err.println("error: the demo failed: " + SetupException.describe(e));
      return 1;
    }
  }
}
