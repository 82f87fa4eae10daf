package dev.outbox.samples.payments;

import java.io.PrintStream;

/**
 * The runnable payments demo on plain JDBC. Runs payments from several threads through request,
 * authorization and capture (each a JDBC transaction that sends its events with {@code
 * JdbcOutbox}), lets the outbox deliver them to RabbitMQ, consumes them with RabbitMQ's own client,
 * runs the outbox's cleanup and prints one summary line. {@code --help} lists the options.
 *
 * <p>Exit codes: 0 when every event arrived and none out of order, no dead letter and nothing left
 * after the cleanup; 1 when something is missing or out of order (or the run failed); 2 for bad
 * input or an unreachable server, with one line on standard error saying what is wrong and how to
 * fix it.
 */
public final class PaymentsDemo {

  private PaymentsDemo() {}

  /**
   * Runs the demo and exits with its exit code.
   *
   * @param args the command line, see {@link PaymentsArguments#USAGE}
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the demo in this JVM on its own tables ({@link PaymentTables#DEMO}).
   *
   * @param args the command line
   * @param out where progress and the summary line go
   * @param err where the one error line goes
   * @return the exit code: 0 passed, 1 missing or out-of-order events or a failed run, 2 bad input
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, PaymentTables.DEMO, out, err);
  }

  /**
   * Runs the demo in this JVM on tables of a given prefix.
   *
   * @param args the command line
   * @param tables the tables to drop and create
   * @param out where progress and the summary line go
   * @param err where the one error line goes
   * @return the exit code: 0 passed, 1 missing or out-of-order events or a failed run, 2 bad input
   */
  public static int run(String[] args, PaymentTables tables, PrintStream out, PrintStream err) {
    try {
      PaymentsArguments arguments = PaymentsArguments.parse(args);
      if (arguments.help()) {
        out.print(PaymentsArguments.USAGE);
        return 0;
      }
      Summary summary = new Demo(arguments, tables, out).run();
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
