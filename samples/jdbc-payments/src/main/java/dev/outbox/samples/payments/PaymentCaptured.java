package dev.outbox.samples.payments;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * A payment was captured. The third and last event of a payment.
 *
 * @param paymentId the payment
 * @param amount how much was captured
 * @param sequence the payment's event number, always 3
 */
@EventType("payment.captured")
public record PaymentCaptured(String paymentId, BigDecimal amount, int sequence)
    implements DomainEvent {}
