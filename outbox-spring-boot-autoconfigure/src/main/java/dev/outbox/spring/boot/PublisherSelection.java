package dev.outbox.spring.boot;

import dev.outbox.spi.EventPublisher;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which broker the outbox publishes to: the one {@code outbox.broker} names, or the one adapter on
 * the classpath. Anything else fails startup with the candidates and the fix.
 */
final class PublisherSelection {

  private PublisherSelection() {}

  /**
   * The chosen broker.
   *
   * @throws OutboxConfigurationException when none or several could be meant, or the named one's
   *     adapter is missing
   */
  static Broker choose(OutboxProperties properties, ClassLoader loader) {
    String named = properties.get("broker");
    List<Broker> present = Broker.present(loader);
    if (named != null && !named.isBlank()) {
      Broker broker = Broker.byId(named);
      if (broker == null) {
        throw new OutboxConfigurationException(
            "outbox.broker=" + named + " names no broker the outbox has an adapter for.",
            "Set outbox.broker to one of " + Broker.ids() + ".",
            null);
      }
      if (!broker.isPresent(loader)) {
        throw new OutboxConfigurationException(
            "outbox.broker="
                + named
                + ", but its adapter "
                + broker.artifact()
                + " is not on the classpath"
                + (present.isEmpty() ? "." : " (the adapters there: " + ids(present) + ")."),
            "Add the dependency "
                + broker.artifact()
                + (present.isEmpty() ? "" : ", or set outbox.broker to " + ids(present))
                + ".",
            null);
      }
      return broker;
    }
    if (present.size() == 1) {
      return present.get(0);
    }
    if (present.isEmpty()) {
      throw new OutboxConfigurationException(
          "No outbox broker adapter is on the classpath, and no EventPublisher bean is defined.",
          "Add one of dev.outbox:adapter-kafka, adapter-rabbitmq, adapter-nats or"
              + " adapter-azure-servicebus; or define an EventPublisher bean; or set"
              + " outbox.delivery-mode=cdc (Debezium delivers) or outbox.enabled=false.",
          null);
    }
    throw new OutboxConfigurationException(
        "Several outbox broker adapters are on the classpath ("
            + ids(present)
            + ") and outbox.broker does not choose one.",
        "Set outbox.broker to one of " + ids(present) + ".",
        null);
  }

  /**
   * The chosen broker's publisher, its options bound from {@code outbox.<broker>.*}.
   *
   * @throws OutboxConfigurationException naming the property when an option is invalid
   */
  static EventPublisher publisher(OutboxProperties properties, ClassLoader loader) {
    Broker broker = choose(properties, loader);
    try {
      return broker.createPublisher(properties.forBinders(), loader);
    } catch (IllegalArgumentException e) {
      throw new OutboxConfigurationException(
          "Invalid " + broker.id() + " publisher property: " + e.getMessage(),
          "Fix the property under "
              + broker.prefix()
              + ".*; the adapter's README lists its keys (kebab-case).",
          e);
    }
  }

  private static String ids(List<Broker> brokers) {
    return brokers.stream().map(Broker::id).collect(Collectors.joining(", "));
  }
}
