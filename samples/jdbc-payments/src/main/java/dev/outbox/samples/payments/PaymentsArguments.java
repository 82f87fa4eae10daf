package dev.outbox.samples.payments;

/**
 * The demo's command line, parsed and checked.
 *
 * @param payments how many payments to run through request, authorization and capture
 * @param threads how many threads run them
 * @param jdbcUrl the PostgreSQL JDBC URL
 * @param amqpUri the RabbitMQ URI
 * @param help whether {@code --help} was given
 */
public record PaymentsArguments(
    int payments, int threads, String jdbcUrl, String amqpUri, boolean help) {

  /** Default of {@link #jdbcUrl()}. */
  public static final String DEFAULT_JDBC_URL =
      "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** Default of {@link #amqpUri()}. */
  public static final String DEFAULT_AMQP_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  /** The usage text of {@code --help}. */
  public static final String USAGE =
      """
      Usage: run-jdbc-sample [options]
        --payments N      payments to request, authorize and capture, default 300
        --threads N       threads running them, default 4
        --jdbc-url URL    PostgreSQL, default %s
        --amqp-uri URI    RabbitMQ, default %s
        --help            this text
      Needs a running PostgreSQL and RabbitMQ. The sample's tables (jdbc_sample_*) are dropped and
      created afresh at every start.
      Exit code: 0 every event arrived in order, 1 something missing or out of order, 2 bad input or
      a server not reachable.
      """
          .formatted(DEFAULT_JDBC_URL, DEFAULT_AMQP_URI);

  /**
   * Parses the command line: {@code --name value} or {@code --name=value}.
   *
   * @param args the arguments
   * @return the arguments
   * @throws SetupException naming the bad argument and what to pass instead
   */
  public static PaymentsArguments parse(String... args) {
    int payments = 300;
    int threads = 4;
    String jdbcUrl = DEFAULT_JDBC_URL;
    String amqpUri = DEFAULT_AMQP_URI;
    boolean help = false;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--help") || name.equals("-h")) {
        help = true;
        continue;
      }
      String value;
      int equals = name.indexOf('=');
      if (name.startsWith("--") && equals > 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      } else if (name.startsWith("--") && i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new SetupException(
            name.startsWith("--")
                ? name + " needs a value; see --help"
                : "unexpected argument '" + name + "'; see --help");
      }
      switch (name) {
        case "--payments" -> payments = number(name, value, 1, 100_000);
        case "--threads" -> threads = number(name, value, 1, 32);
        case "--jdbc-url" -> jdbcUrl = value;
        case "--amqp-uri" -> amqpUri = value;
        default -> throw new SetupException("unknown option " + name + "; see --help");
      }
    }
    return new PaymentsArguments(payments, threads, jdbcUrl, amqpUri, help);
  }

  private static int number(String name, String value, int min, int max) {
    try {
      int n = Integer.parseInt(value.strip());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new SetupException(
        name + " must be a whole number from " + min + " to " + max + ", but was '" + value + "'");
  }
}
