package dev.outbox.spring.boot;

import dev.outbox.spi.EventPublisher;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The brokers {@code outbox.broker} names, each with its adapter and the prefix of its options. The
 * adapter's classes are touched only by its factory in {@code publishers}, loaded when it is
 * chosen.
 */
enum Broker {
  KAFKA("kafka", "adapter-kafka", "dev.outbox.kafka.KafkaEventPublisher", "outbox.kafka"),
  RABBITMQ(
      "rabbitmq",
      "adapter-rabbitmq",
      "dev.outbox.rabbitmq.RabbitMqEventPublisher",
      "outbox.rabbitmq"),
  NATS("nats", "adapter-nats", "dev.outbox.nats.NatsEventPublisher", "outbox.nats"),
  AZURE_SERVICEBUS(
      "azure-servicebus",
      "adapter-azure-servicebus",
      "dev.outbox.servicebus.ServiceBusEventPublisher",
      "outbox.servicebus");

  private final String id;
  private final String artifact;
  private final String publisherClass;
  private final String prefix;

  Broker(String id, String artifact, String publisherClass, String prefix) {
    this.id = id;
    this.artifact = artifact;
    this.publisherClass = publisherClass;
    this.prefix = prefix;
  }

  /** The value of {@code outbox.broker}. */
  String id() {
    return id;
  }

  /** The Maven coordinates of its adapter. */
  String artifact() {
    return "dev.outbox:" + artifact;
  }

  /** The prefix of its options, as its README names them. */
  String prefix() {
    return prefix;
  }

  /** Whether its adapter is on the classpath. */
  boolean isPresent(ClassLoader loader) {
    try {
      Class.forName(publisherClass, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Its publisher, from the properties under {@link #prefix()}. */
  EventPublisher createPublisher(Map<String, String> properties, ClassLoader loader) {
    String factory =
        Broker.class.getPackageName()
            + ".publishers."
            + Arrays.stream(name().toLowerCase(Locale.ROOT).split("_"))
                .map(part -> Character.toUpperCase(part.charAt(0)) + part.substring(1))
                .collect(Collectors.joining())
            + "Publishers";
    try {
      @SuppressWarnings("unchecked")
      BiFunction<Map<String, String>, String, EventPublisher> created =
          (BiFunction<Map<String, String>, String, EventPublisher>)
              Class.forName(factory, true, loader).getDeclaredConstructor().newInstance();
      return created.apply(properties, prefix);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot create " + factory, e);
    }
  }

  /** The ids, for messages. */
  static String ids() {
    return Arrays.stream(values()).map(Broker::id).collect(Collectors.joining(", "));
  }

  /** The broker with that id, or {@code null}. */
  static Broker byId(String id) {
    return Arrays.stream(values())
        .filter(broker -> broker.id.equalsIgnoreCase(id.strip()))
        .findFirst()
        .orElse(null);
  }

  /** Those whose adapter is on the classpath. */
  static List<Broker> present(ClassLoader loader) {
    return Arrays.stream(values()).filter(broker -> broker.isPresent(loader)).toList();
  }
}
