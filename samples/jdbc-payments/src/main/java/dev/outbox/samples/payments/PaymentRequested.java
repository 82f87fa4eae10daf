package dev.outbox.samples.payments;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * A payment was opened. The first event of a payment.
 *
 * @param paymentId the payment
 * @param merchantId who is paid
 * @param amount how much
 * @param sequence the payment's event number, always 1
 */
@EventType("payment.requested")
public record PaymentRequested(String paymentId, String merchantId, BigDecimal amount, int sequence)
    implements DomainEvent {}
