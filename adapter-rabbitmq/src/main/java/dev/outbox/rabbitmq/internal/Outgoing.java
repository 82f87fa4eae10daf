package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One outbox message made ready for {@code basic.publish}, or the reason it cannot be sent.
 *
 * @param message the outbox message
 * @param routingKey its routing key
 * @param properties its AMQP properties
 * @param failure {@code null} when it can be sent, otherwise why not
 */
record Outgoing(
    OutboxMessage message,
    String routingKey,
    AMQP.BasicProperties properties,
    PublishException failure) {

  /** AMQP short strings (routing key, type, app-id, ...) hold at most 255 bytes. */
  static final int MAX_SHORT_STRING = 255;

  /** AMQP delivery mode 2: the broker writes the message to disk in durable queues. */
  static final int PERSISTENT = 2;

  /**
   * Prepares a message: native properties ({@code message-id}, {@code type}, {@code content-type},
   * {@code timestamp}, {@code app-id}, persistent delivery) and the {@link WireHeaders} as AMQP
   * headers, which include every row header and the aggregate type and id.
   */
  static Outgoing prepare(
      OutboxMessage message,
      String exchange,
      Function<OutboxMessage, String> routingKeys,
      String appId) {
    String routingKey;
    try {
      routingKey = routingKeys.apply(message);
    } catch (RuntimeException e) {
      return failed(message, exchange, "the routing key function threw " + e, e);
    }
    String tooLong = firstTooLong(routingKey, message.eventType(), message.contentType());
    if (routingKey == null || tooLong != null) {
      return failed(
          message,
          exchange,
          "routing key, event type and content type must be AMQP short strings (at most 255"
              + " bytes), but got "
              + (routingKey == null ? "a null routing key" : "'" + tooLong + "'"),
          null);
    }
    Map<String, Object> headers = new LinkedHashMap<>(WireHeaders.of(message));
    AMQP.BasicProperties properties =
        new AMQP.BasicProperties.Builder()
            .messageId(message.id().toString())
            .type(message.eventType())
            .contentType(message.contentType())
            .timestamp(Date.from(message.occurredAt()))
            .appId(appId)
            .deliveryMode(PERSISTENT)
            .headers(headers)
            .build();
    return new Outgoing(message, routingKey, properties, null);
  }

  byte[] body() {
    return message.payloadBytes();
  }

  /**
   * This message, or its failure when its body is larger than the broker takes: RabbitMQ would
   * close the channel for it (406 PRECONDITION_FAILED), failing every message unconfirmed on it.
   * Retryable, as that refusal is, since the broker's limit may be raised.
   *
   * @param maxMessageSize the broker's {@code max_message_size} in bytes
   * @param exchange where it was to go
   * @return this, or a failed copy
   */
  Outgoing limitedTo(long maxMessageSize, String exchange) {
    if (failure != null) {
      return this;
    }
    int size = body().length;
    if (size <= maxMessageSize) {
      return this;
    }
    return new Outgoing(
        message,
        routingKey,
        properties,
        Blame.MESSAGE_RETRYABLE.failure(
            message.id(),
            exchange,
            "the message of "
                + size
                + " bytes is larger than RabbitMQ's max_message_size of "
                + maxMessageSize
                + " bytes (406 PRECONDITION_FAILED); shrink the message or raise the limit",
            null));
  }

  private static String firstTooLong(String... values) {
    for (String value : values) {
      if (value != null && value.getBytes(StandardCharsets.UTF_8).length > MAX_SHORT_STRING) {
        return value;
      }
    }
    return null;
  }

  private static Outgoing failed(
      OutboxMessage message, String exchange, String reason, Throwable cause) {
    return new Outgoing(
        message, null, null, PublishException.permanent(message.id(), exchange, reason, cause));
  }
}
