package dev.outbox.kafka;

import dev.outbox.IncomingMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a consumed Kafka record as an {@link IncomingMessage}, for an inbox: the outbox's fields
 * come from the record's headers ({@link WireHeaders}, UTF-8), the payload from its value.
 *
 * <pre>{@code
 * for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
 *   inbox.receive(KafkaIncoming.of(record), handler);
 * }
 * }</pre>
 *
 * <p>Kafka has no message id of its own: a record without the {@value WireHeaders#MESSAGE_ID}
 * header has no id, and is refused.
 */
public final class KafkaIncoming {

  private KafkaIncoming() {}

  /**
   * Reads a record. Header values are read as UTF-8; of several headers of one name the last wins.
   *
   * @param record a record consumed with the {@code ByteArrayDeserializer} or the {@code
   *     StringDeserializer} for values; its key is not read (the aggregate id travels in a header)
   * @return the message; a {@code null} value (a tombstone) is an empty payload
   * @throws NullPointerException when {@code record} is {@code null}
   * @throws IllegalArgumentException when the value is neither {@code byte[]} nor {@code String},
   *     or the record has no {@value WireHeaders#MESSAGE_ID} header, or its outbox headers are
   *     malformed ({@link IncomingMessage#of(Map, byte[], String)})
   */
  public static IncomingMessage of(ConsumerRecord<?, ?> record) {
    Objects.requireNonNull(record, "record");
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header header : record.headers()) {
      if (header.value() != null) {
        headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
      }
    }
    return IncomingMessage.of(headers, payload(record), null);
  }

  private static byte[] payload(ConsumerRecord<?, ?> record) {
    Object value = record.value();
    if (value == null || value instanceof byte[]) {
      return (byte[]) value;
    }
    if (value instanceof String text) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    throw new IllegalArgumentException(
        "The value of the Kafka record at "
            + record.topic()
            + '-'
            + record.partition()
            + '@'
            + record.offset()
            + " is a "
            + value.getClass().getName()
            + ", which is not the outbox's payload as sent; consume with value.deserializer="
            + "org.apache.kafka.common.serialization.ByteArrayDeserializer (or StringDeserializer)");
  }
}
