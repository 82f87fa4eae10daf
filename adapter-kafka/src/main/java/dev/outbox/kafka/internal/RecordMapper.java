package dev.outbox.kafka.internal;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * An outbox message as a Kafka record: key = aggregate id (so that one aggregate's events share a
 * partition and keep their order), value = the payload's UTF-8 bytes, headers = {@link
 * WireHeaders#of(OutboxMessage)} as UTF-8. The record timestamp is left to the producer (send
 * time); when the event happened travels in {@value WireHeaders#OCCURRED_AT}, so that events
 * delivered after a long outage are not refused by a broker's timestamp checks.
 */
public final class RecordMapper {

  private RecordMapper() {}

  /**
   * Builds the record.
   *
   * @param message the outbox message
   * @param topic its topic
   * @return the record to send
   */
  public static ProducerRecord<String, byte[]> toRecord(OutboxMessage message, String topic) {
    RecordHeaders headers = new RecordHeaders();
    WireHeaders.of(message)
        .forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
    return new ProducerRecord<>(
        topic, null, null, message.aggregateId(), message.payloadBytes(), headers);
  }
}
