package dev.outbox.samples.payments;

import dev.outbox.DomainEvent;
import dev.outbox.EventType;
import java.math.BigDecimal;

/**
 * A merchant's balance grew by a captured payment. Many threads credit one merchant, so the order
 * of these events is the order of the transactions that wrote them.
 *
 * @param merchantId the merchant
 * @param paymentId the captured payment
 * @param amount how much
 * @param sequence the merchant's entry number, counted in its row: 1, 2, 3, ...
 */
@EventType("merchant.credited")
public record MerchantCredited(String merchantId, String paymentId, BigDecimal amount, int sequence)
    implements DomainEvent {}
