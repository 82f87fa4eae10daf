package dev.outbox.samples.brokers;

import dev.outbox.samples.DemoArguments;
import dev.outbox.samples.SetupException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Opens the broker the command line names. */
public final class Brokers {

  private Brokers() {}

  /**
   * Connects to (or starts) the broker and declares this run's destination.
   *
   * @param arguments the command line
   * @param runId a short id unique to this run, used in destination names
   * @return the broker, ready
   * @throws SetupException when the broker's address is malformed or nothing answers there
   */
  public static Broker open(DemoArguments arguments, String runId) {
    return switch (arguments.broker()) {
      case "kafka" -> KafkaBroker.open(arguments.bootstrapServers(), runId);
      case "rabbitmq" -> RabbitMqBroker.open(arguments.amqpUri(), runId);
      case "nats" -> NatsBroker.open(arguments.natsUrl(), runId);
      case "azure-servicebus" ->
          ServiceBusBroker.open(arguments.serviceBusConnectionString(), runId);
      default -> throw new SetupException("unknown broker '" + arguments.broker() + "'");
    };
  }

  static String text(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  static Instant instant(Object value) {
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value.toString());
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
