package dev.outbox.samples.payments;

/**
 * What the consumer took from a RabbitMQ message: the outbox's standard headers ({@code
 * dev.outbox.spi.WireHeaders}) and the body.
 *
 * @param messageId the AMQP message id ({@code outbox-message-id}): the idempotency key
 * @param aggregateType header {@code outbox-aggregate-type}
 * @param aggregateId header {@code outbox-aggregate-id}
 * @param eventType the AMQP type ({@code outbox-event-type})
 * @param payload the body, UTF-8 JSON
 */
public record ReceivedEvent(
    String messageId, String aggregateType, String aggregateId, String eventType, String payload) {}
