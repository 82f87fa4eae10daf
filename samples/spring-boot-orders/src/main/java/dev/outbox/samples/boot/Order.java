package dev.outbox.samples.boot;

import dev.outbox.AggregateRoot;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;

/** An order: placed, maybe cancelled. Each change registers its event; the flush writes it. */
@Entity
@Table(name = "boot_sample_orders")
public class Order extends AggregateRoot {

  @Id @GeneratedValue private Long id;

  @Column(nullable = false)
  private String customer;

  @Column(nullable = false)
  private BigDecimal total;

  @Column(nullable = false)
  private boolean cancelled;

  /** For Hibernate. */
  protected Order() {}

  private Order(String customer, BigDecimal total) {
    this.customer = customer;
    this.total = total;
  }

  /**
   * A new order; its {@link OrderPlaced} event is registered once it has an id (see {@link
   * OrderService#place}).
   *
   * @param customer who places it
   * @param total its amount
   * @return the order
   */
  public static Order of(String customer, BigDecimal total) {
    return new Order(customer, total);
  }

  /** Registers {@link OrderPlaced}; the id is known once the order was saved. */
  void placed() {
    registerEvent(new OrderPlaced(id, customer, total));
  }

  /**
   * Cancels the order.
   *
   * @param reason why
   */
  public void cancel(String reason) {
    if (cancelled) {
      throw new IllegalStateException("order " + id + " is already cancelled");
    }
    cancelled = true;
    registerEvent(new OrderCancelled(id, reason));
  }

  /** The stable name on the wire: the Kafka topic. */
  @Override
  public String aggregateType() {
    return "orders";
  }

  public Long getId() {
    return id;
  }

  public String getCustomer() {
    return customer;
  }

  public BigDecimal getTotal() {
    return total;
  }

  public boolean isCancelled() {
    return cancelled;
  }
}
