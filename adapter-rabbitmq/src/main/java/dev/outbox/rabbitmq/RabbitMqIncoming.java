package dev.outbox.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import dev.outbox.IncomingMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a consumed RabbitMQ message as an {@link IncomingMessage}, for an inbox: the outbox's
 * fields come from the AMQP headers ({@link WireHeaders}), the id from the {@code message-id}
 * property when the {@value WireHeaders#MESSAGE_ID} header is missing, the event and content type
 * from the {@code type} and {@code content-type} properties when their headers are missing.
 *
 * <pre>{@code
 * channel.basicConsume(queue, false, (tag, delivery) -> {
 *   inbox.receive(RabbitMqIncoming.of(delivery), handler);
 *   channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
 * }, tag -> {});
 * }</pre>
 */
public final class RabbitMqIncoming {

  private RabbitMqIncoming() {}

  /**
   * Reads a delivery, as handed to a {@code DeliverCallback} or returned by {@code basicGet}
   * ({@code GetResponse} has the same properties and body: use {@link #of(AMQP.BasicProperties,
   * byte[])}).
   *
   * @param delivery the delivery
   * @return the message
   * @throws NullPointerException when {@code delivery} or its properties are {@code null}
   * @throws IllegalArgumentException when the message has no id, or its outbox headers are
   *     malformed ({@link IncomingMessage#of(Map, byte[], String)})
   */
  public static IncomingMessage of(Delivery delivery) {
    Objects.requireNonNull(delivery, "delivery");
    return of(delivery.getProperties(), delivery.getBody());
  }

  /**
   * Reads a message from its properties and body, as a Spring AMQP or a {@code basicGet} consumer
   * has them. Header values are read as text: {@code LongString}s and {@code byte[]} as UTF-8,
   * numbers and booleans in decimal, timestamps as ISO-8601.
   *
   * @param properties the AMQP properties
   * @param body the body, {@code null} for none
   * @return the message
   * @throws NullPointerException when {@code properties} is {@code null}
   * @throws IllegalArgumentException when the message has neither the {@value
   *     WireHeaders#MESSAGE_ID} header nor a {@code message-id}, or its outbox headers are
   *     malformed ({@link IncomingMessage#of(Map, byte[], String)})
   */
  public static IncomingMessage of(AMQP.BasicProperties properties, byte[] body) {
    Objects.requireNonNull(properties, "properties");
    Map<String, String> headers = new LinkedHashMap<>();
    putIfSet(headers, WireHeaders.EVENT_TYPE, properties.getType());
    putIfSet(headers, WireHeaders.CONTENT_TYPE, properties.getContentType());
    if (properties.getHeaders() != null) {
      properties.getHeaders().forEach((name, value) -> putIfSet(headers, name, text(value)));
    }
    return IncomingMessage.of(headers, body, properties.getMessageId());
  }

  private static void putIfSet(Map<String, String> headers, String name, String value) {
    if (name != null && value != null) {
      headers.put(name, value);
    }
  }

  /** A header value as text; {@code LongString#toString()} decodes its bytes as UTF-8. */
  private static String text(Object value) {
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    if (value instanceof Date date) {
      return date.toInstant().toString();
    }
    return value == null ? null : value.toString();
  }
}
