package com.example.orders;

import dev.outbox.AggregateRoot;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.util.UUID;

/**
 * An order: a JPA entity and an aggregate. The events it registers are written to the outbox by
 * the same flush that writes the order, in the same transaction.
 */
@Entity
@Table(name = "orders")
public class Order extends AggregateRoot {

  @Id private UUID id;

  private BigDecimal total;

  /** For JPA. */
  protected Order() {}

  /**
   * Places an order and registers {@link OrderPlaced}.
   *
   * @param total what it costs
   * @return the new order, to persist
   */
  public static Order place(BigDecimal total) {
    Order order = new Order();
    order.id = UUID.randomUUID();
    order.total = total;
    order.registerEvent(new OrderPlaced(order.id, total));
    return order;
  }

  /**
   * The order's id, which is also the aggregate id on the wire.
   *
   * @return the id
   */
  public UUID id() {
    return id;
  }
}
