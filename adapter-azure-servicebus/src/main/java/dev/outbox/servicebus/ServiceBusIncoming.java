package dev.outbox.servicebus;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import dev.outbox.IncomingMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a received Service Bus message as an {@link IncomingMessage}, for an inbox: the outbox's
 * fields come from the application properties ({@link WireHeaders}), the id from {@code MessageId}
 * when the {@value WireHeaders#MESSAGE_ID} property is missing, the event and content type from
 * {@code Subject} and {@code ContentType} when their properties are missing.
 *
 * <pre>{@code
 * new ServiceBusClientBuilder().connectionString(connectionString)
 *     .processor().queueName("orders")
 *     .processMessage(context -> inbox.receive(ServiceBusIncoming.of(context.getMessage()), handler))
 *     ...
 * }</pre>
 */
public final class ServiceBusIncoming {

  private ServiceBusIncoming() {}

  /**
   * Reads a message as a receiver or processor client delivered it. Property values are read as
   * text: strings as they are, {@code byte[]} as UTF-8, timestamps as ISO-8601, numbers, booleans
   * and UUIDs in their usual form.
   *
   * @param message the received message
   * @return the message
   * @throws NullPointerException when {@code message} is {@code null}
   * @throws IllegalArgumentException when the message has neither the {@value
   *     WireHeaders#MESSAGE_ID} property nor a {@code MessageId}, or its outbox properties are
   *     malformed ({@link IncomingMessage#of(Map, byte[], String)})
   * @throws IllegalStateException from the SDK, when the body is not an AMQP data section (a value
   *     or sequence body of another producer)
   */
  public static IncomingMessage of(ServiceBusReceivedMessage message) {
    Objects.requireNonNull(message, "message");
    BinaryData body = message.getBody();
    return read(
        message.getApplicationProperties(),
        message.getSubject(),
        message.getContentType(),
        body == null ? null : body.toBytes(),
        message.getMessageId());
  }

  /** What {@link #of(ServiceBusReceivedMessage)} reads, from the message's parts. */
  static IncomingMessage read(
      Map<String, Object> applicationProperties,
      String subject,
      String contentType,
      byte[] body,
      String messageId) {
    Map<String, String> headers = new LinkedHashMap<>();
    putIfSet(headers, WireHeaders.EVENT_TYPE, subject);
    putIfSet(headers, WireHeaders.CONTENT_TYPE, contentType);
    if (applicationProperties != null) {
      applicationProperties.forEach((name, value) -> putIfSet(headers, name, text(value)));
    }
    return IncomingMessage.of(headers, body, messageId);
  }

  private static void putIfSet(Map<String, String> headers, String name, String value) {
    if (name != null && value != null) {
      headers.put(name, value);
    }
  }

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
