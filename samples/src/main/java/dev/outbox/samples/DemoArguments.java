package dev.outbox.samples;

import java.util.List;
import java.util.Locale;

/**
 * The demo's command line, parsed and checked.
 *
 * @param broker which broker carries the events
 * @param orders how many orders to place
 * @param threads how many threads place them
 * @param jdbcUrl a PostgreSQL JDBC URL, or {@code null} for the embedded PostgreSQL
 * @param bootstrapServers Kafka bootstrap servers, or {@code null} for the in-JVM broker
 * @param amqpUri the RabbitMQ URI
 * @param natsUrl the NATS URL
 * @param serviceBusConnectionString the Service Bus connection string, or {@code null}
 * @param help whether {@code --help} was given
 */
public record DemoArguments(
    String broker,
    int orders,
    int threads,
    String jdbcUrl,
    String bootstrapServers,
    String amqpUri,
    String natsUrl,
    String serviceBusConnectionString,
    boolean help) {

  /** The brokers the demo knows. */
  public static final List<String> BROKERS =
      List.of("kafka", "rabbitmq", "nats", "azure-servicebus");

  /** The usage text of {@code --help}. */
  public static final String USAGE =
      """
      Usage: run-sample [options]
        --broker kafka|rabbitmq|nats|azure-servicebus   default kafka (in-JVM broker)
        --orders N                     orders to place, default 1000
        --threads N                    threads placing them, default 4
        --jdbc-url URL                 PostgreSQL, e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres
                                       default: an embedded PostgreSQL
        --bootstrap-servers H:P[,H:P]  Kafka, default: a broker inside this JVM
        --amqp-uri URI                 RabbitMQ, default amqp://guest:guest@127.0.0.1:5672/%2F
        --nats-url URL                 NATS with JetStream, default nats://127.0.0.1:4222
        --servicebus-connection-string S   Azure Service Bus (Manage rights); no default
        --help                         this text
      Exit code: 0 every event arrived in order, 1 something missing or out of order, 2 bad input.
      """;

  /** Default of {@link #amqpUri()}. */
  public static final String DEFAULT_AMQP_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  /** Default of {@link #natsUrl()}. */
  public static final String DEFAULT_NATS_URL = "nats://127.0.0.1:4222";

  /**
   * Parses the command line.
   *
   * @param args the arguments
   * @return the arguments
   * @throws SetupException naming the bad argument and what to pass instead
   */
  public static DemoArguments parse(String... args) {
    Builder builder = new Builder();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        builder.help = true;
        continue;
      }
      String name = arg;
      String value;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new SetupException(
            arg.startsWith("--")
                ? arg + " needs a value; see --help"
                : "unexpected argument '" + arg + "'; see --help");
      }
      builder.set(name, value);
    }
    return builder.build();
  }

  private static final class Builder {
    String broker = "kafka";
    int orders = 1_000;
    int threads = 4;
    String jdbcUrl;
    String bootstrapServers;
    String amqpUri = DEFAULT_AMQP_URI;
    String natsUrl = DEFAULT_NATS_URL;
    String serviceBusConnectionString;
    boolean help;

    void set(String name, String value) {
      switch (name) {
        case "--broker" -> broker = value.toLowerCase(Locale.ROOT);
        case "--orders" -> orders = number(name, value, 1, 1_000_000);
        case "--threads" -> threads = number(name, value, 1, 64);
        case "--jdbc-url" -> jdbcUrl = value;
        case "--bootstrap-servers" -> bootstrapServers = value;
        case "--amqp-uri" -> amqpUri = value;
        case "--nats-url" -> natsUrl = value;
        case "--servicebus-connection-string" -> serviceBusConnectionString = value;
        default -> throw new SetupException("unknown option " + name + "; see --help");
      }
    }

    DemoArguments build() {
      if (!help && !BROKERS.contains(broker)) {
        throw new SetupException(
            "unknown broker '"
                + broker
                + "': pass --broker with one of "
                + String.join(", ", BROKERS));
      }
      return new DemoArguments(
          broker,
          orders,
          threads,
          jdbcUrl,
          bootstrapServers,
          amqpUri,
          natsUrl,
          serviceBusConnectionString,
          help);
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
          name
              + " must be a whole number from "
              + min
              + " to "
              + max
              + ", but was '"
              + value
              + "'");
    }
  }
}
