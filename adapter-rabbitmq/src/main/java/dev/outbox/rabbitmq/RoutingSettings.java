package dev.outbox.rabbitmq;

import static dev.outbox.spi.OptionText.quote;
import static dev.outbox.spi.OptionText.requireText;

import dev.outbox.OutboxMessage;
import dev.outbox.rabbitmq.internal.RoutingKeyTemplate;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where each message goes and what it carries: the exchange (and whether and how the publisher
 * declares it), the routing key of each message, and the AMQP {@code app-id}.
 */
record RoutingSettings(
    String exchange,
    String exchangeType,
    boolean exchangeDurable,
    boolean declareExchange,
    Function<OutboxMessage, String> routingKey,
    String appId) {

  static final RoutingSettings DEFAULTS =
      new RoutingSettings(
          RabbitMqPublisherOptions.DEFAULT_EXCHANGE,
          RabbitMqPublisherOptions.DEFAULT_EXCHANGE_TYPE,
          true,
          false,
          RoutingKeyTemplate.of(RabbitMqPublisherOptions.DEFAULT_ROUTING_KEY),
          null);

  RoutingSettings withExchange(String value) {
    if (value == null || value.length() > 255) {
      throw new IllegalArgumentException(
          "exchange must be a name of at most 255 characters, but was " + quote(value));
    }
    return new RoutingSettings(
        value, exchangeType, exchangeDurable, declareExchange, routingKey, appId);
  }

  RoutingSettings withExchangeType(String type) {
    return new RoutingSettings(
        exchange,
        requireText("exchangeType", type),
        exchangeDurable,
        declareExchange,
        routingKey,
        appId);
  }

  RoutingSettings withExchangeDurable(boolean durable) {
    return new RoutingSettings(exchange, exchangeType, durable, declareExchange, routingKey, appId);
  }

  RoutingSettings withDeclareExchange(boolean declare) {
    return new RoutingSettings(exchange, exchangeType, exchangeDurable, declare, routingKey, appId);
  }

  RoutingSettings withRoutingKey(Function<OutboxMessage, String> function) {
    return new RoutingSettings(
        exchange,
        exchangeType,
        exchangeDurable,
        declareExchange,
        Objects.requireNonNull(function, "routingKey must not be null"),
        appId);
  }

  RoutingSettings withRoutingKeyTemplate(String template) {
    return withRoutingKey(RoutingKeyTemplate.of(template));
  }

  RoutingSettings withAppId(String value) {
    if (value != null && (value.isBlank() || value.getBytes(StandardCharsets.UTF_8).length > 255)) {
      throw new IllegalArgumentException(
          "appId must be null or 1 to 255 bytes of text, but was " + quote(value));
    }
    return new RoutingSettings(
        exchange, exchangeType, exchangeDurable, declareExchange, routingKey, value);
  }
}
