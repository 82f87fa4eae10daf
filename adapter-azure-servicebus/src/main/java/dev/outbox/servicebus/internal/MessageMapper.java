package dev.outbox.servicebus.internal;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusMessage;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.WireHeaders;
import java.util.Map;

/**
 * Turns an outbox message into a Service Bus message: native {@code MessageId}, {@code Subject},
 * {@code ContentType}, {@code CorrelationId}, {@code SessionId} or {@code PartitionKey}, and every
 * {@link WireHeaders} header as an application property.
 */
public final class MessageMapper {

  private final boolean sessionEnabled;
  private final String correlationIdHeader;

  /**
   * Creates a mapper.
   *
   * @param sessionEnabled set {@code SessionId} (else {@code PartitionKey}) to the aggregate id
   * @param correlationIdHeader the row header that becomes {@code CorrelationId}
   */
  public MessageMapper(boolean sessionEnabled, String correlationIdHeader) {
    this.sessionEnabled = sessionEnabled;
    this.correlationIdHeader = correlationIdHeader;
  }

  /**
   * Maps one message.
   *
   * @param message the outbox message
   * @return the Service Bus message
   * @throws IllegalArgumentException when Service Bus cannot carry it (an aggregate id longer than
   *     128 characters, for instance)
   */
  public ServiceBusMessage map(OutboxMessage message) {
    ServiceBusMessage mapped = new ServiceBusMessage(BinaryData.fromBytes(message.payloadBytes()));
    mapped.setMessageId(message.id().toString());
    mapped.setSubject(message.eventType());
    mapped.setContentType(message.contentType());
    String correlationId = message.headers().get(correlationIdHeader);
    if (correlationId != null) {
      mapped.setCorrelationId(correlationId);
    }
    if (sessionEnabled) {
      mapped.setSessionId(message.aggregateId());
    } else {
      mapped.setPartitionKey(message.aggregateId());
    }
    Map<String, Object> properties = mapped.getApplicationProperties();
    properties.putAll(WireHeaders.of(message));
    return mapped;
  }
}
