package dev.outbox.servicebus;

import static dev.outbox.servicebus.OptionChecks.requireText;

import dev.outbox.OutboxMessage;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where each message goes and how Service Bus keys it: the queue or topic (one name, or chosen per
 * message), session id or partition key, and the header that becomes the correlation id.
 *
 * @param entityDescription the entity's name, or how it is chosen, as printed by the options
 */
record EntitySettings(
    Function<OutboxMessage, String> entityResolver,
    String entityDescription,
    boolean sessionEnabled,
    String correlationIdHeader) {

  static final EntitySettings DEFAULTS =
      new EntitySettings(
          message -> ServiceBusPublisherOptions.DEFAULT_ENTITY,
          ServiceBusPublisherOptions.DEFAULT_ENTITY,
          false,
          ServiceBusPublisherOptions.DEFAULT_CORRELATION_ID_HEADER);

  EntitySettings withEntity(String entity) {
    String name = requireText("entity", entity);
    return new EntitySettings(message -> name, name, sessionEnabled, correlationIdHeader);
  }

  EntitySettings withEntityResolver(Function<OutboxMessage, String> resolver) {
    return new EntitySettings(
        Objects.requireNonNull(resolver, "entityResolver must not be null"),
        "resolved per message",
        sessionEnabled,
        correlationIdHeader);
  }

  EntitySettings withSessionEnabled(boolean enabled) {
    return new EntitySettings(entityResolver, entityDescription, enabled, correlationIdHeader);
  }

  EntitySettings withCorrelationIdHeader(String header) {
    return new EntitySettings(
        entityResolver,
        entityDescription,
        sessionEnabled,
        requireText("correlationIdHeader", header));
  }
}
