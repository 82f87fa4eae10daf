package dev.outbox.samples.payments;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;

/**
 * A payment was authorized. The second event of a payment.
 *
 * @param paymentId the payment
 * @param sequence the payment's event number, always 2
 */
@EventType("payment.authorized")
public record PaymentAuthorized(String paymentId, int sequence) implements DomainEvent {}
