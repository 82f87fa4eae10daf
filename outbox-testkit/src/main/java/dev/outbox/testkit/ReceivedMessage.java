package dev.outbox.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message as a consumer took it from the broker, normalized so that the contract can check every
 * broker alike. The adapter's test maps the broker's own message into it, reading each field from
 * where that broker keeps it.
 *
 * @param destination where it was received from: topic, queue or subject
 * @param messageId the broker's own message id or idempotency slot (RabbitMQ and Service Bus {@code
 *     messageId}, NATS {@code Nats-Msg-Id}); for Kafka, which has none, the {@code
 *     outbox-message-id} header
 * @param key the broker's ordering key: Kafka record key, Service Bus session id or partition key,
 *     a subject token; where the broker has none, the {@code outbox-aggregate-id} header
 * @param headers the native headers or application properties, as strings
 * @param body the body, exactly the bytes received
 * @param contentType the broker's content-type slot, or the {@code content-type} header where it
 *     has none
 */
public record ReceivedMessage(
    String destination,
    String messageId,
    String key,
    Map<String, String> headers,
    byte[] body,
    String contentType) {

  /** Copies the headers and the body. */
  public ReceivedMessage {
    Objects.requireNonNull(body, "body");
    headers =
        headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    body = body.clone();
  }

  /**
   * The body read as UTF-8, for messages in assertion output.
   *
   * @return the text
   */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  @Override
  public String toString() {
    return "ReceivedMessage[destination="
        + destination
        + ", messageId="
        + messageId
        + ", key="
        + key
        + ", headers="
        + headers
        + ", contentType="
        + contentType
        + ", body="
        + body.length
        + " bytes]";
  }
}
