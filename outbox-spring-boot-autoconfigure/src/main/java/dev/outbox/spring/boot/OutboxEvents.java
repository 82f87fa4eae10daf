package dev.outbox.spring.boot;

import dev.outbox.DomainEvent;
import dev.outbox.OutboxException;

/**
 * Sends an event that no aggregate registers ("send {@code PaymentRequested} for payment 42") in
 * the application's current Spring transaction: it is delivered once that transaction commits, and
 * never if it rolls back. The auto-configured bean writes through Hibernate with JPA (queued in the
 * session, written at its next flush with the events the aggregates registered, the commit's flush
 * included) and through the {@code JdbcOutbox} on the {@code DataSource} without JPA (written at
 * once on the transaction's connection).
 *
 * <pre>{@code
 * @Transactional
 * public void requestPayment(String paymentId, long amount) {
 *   payments.insert(paymentId, amount);
 *   outboxEvents.send("Payment", paymentId, new PaymentRequested(paymentId, amount));
 * }
 * }</pre>
 *
 * <p>Events of one aggregate are delivered in the order they were sent.
 */
public interface OutboxEvents {

  /**
   * Sends one event for an aggregate in the current transaction.
   *
   * @param aggregateType the aggregate type (routing: topic, subject, ...), non-blank, at most 255
   *     characters
   * @param aggregateId the aggregate id (ordering, partitioning), non-blank, at most 255 characters
   * @param event the event
   * @throws OutboxException when no Spring transaction is active (call it inside a
   *     {@code @Transactional} method), or naming what else is wrong; nothing is sent, and the
   *     transaction should roll back
   */
  void send(String aggregateType, String aggregateId, DomainEvent event);
}
