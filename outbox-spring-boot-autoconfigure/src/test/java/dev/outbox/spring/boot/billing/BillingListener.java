package dev.outbox.spring.boot.billing;

import dev.outbox.IncomingMessage;
import dev.outbox.spring.boot.OutboxEvents;
import dev.outbox.spring.boot.TransactionalInbox;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Bills each order step once, in order: a {@code @RabbitListener} in a {@code @Transactional}
 * method, the inbox's position, the JPA entity and the outbox event in one transaction. A step
 * named in {@link #failOnce(String, long)} fails once after all its effects, which must then roll
 * back with the position, so that its redelivery bills it.
 */
@Component
public class BillingListener {

  /** {@code orderId:step} of the steps whose first application fails after its effects. */
  private final Set<String> failOnce = ConcurrentHashMap.newKeySet();

  private final TransactionalInbox inbox;
  private final BilledOrders billed;
  private final OutboxEvents events;

  public BillingListener(TransactionalInbox inbox, BilledOrders billed, OutboxEvents events) {
    this.inbox = inbox;
    this.billed = billed;
    this.events = events;
  }

  /** Makes the first application of a step fail after all its effects. */
  public void failOnce(String orderId, long step) {
    failOnce.add(orderId + ':' + step);
  }

  /** The injected failures that have not happened yet. */
  public Set<String> failuresLeft() {
    return Set.copyOf(failOnce);
  }

  @RabbitListener(queues = "${billing.queue}")
  @Transactional
  public void on(Message message) {
    inbox.apply(
        incoming(message),
        (connection, m) -> {
          String orderId = m.aggregateId();
          long step = Long.parseLong(m.payloadText().replaceAll(".*\"step\":(\\d+).*", "$1"));
          BilledOrder order = billed.findById(orderId).orElseGet(() -> new BilledOrder(orderId));
          order.bill(step);
          billed.save(order);
          events.send("Invoice", orderId, new InvoiceIssued(orderId, step));
          if (failOnce.remove(orderId + ':' + step)) {
            throw new IllegalStateException("injected failure after billing " + orderId);
          }
        });
  }

  /** The message as the inbox reads it: Spring AMQP's headers as text, and its message id. */
  private static IncomingMessage incoming(Message message) {
    MessageProperties properties = message.getMessageProperties();
    Map<String, String> headers = new HashMap<>();
    properties.getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
    return IncomingMessage.of(headers, message.getBody(), properties.getMessageId());
  }
}
