package dev.outbox.spring.boot.shop;

import dev.outbox.AggregateRoot;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An order that raises one numbered event per step; its type names the Kafka topic. */
@Entity
@Table(name = "boot_shop_orders")
public class ShopOrder extends AggregateRoot {

  @Id
  @Column(length = 100)
  private String id;

  @Column(name = "order_type", nullable = false, length = 100)
  private String type;

  @Column(nullable = false)
  private long steps;

  protected ShopOrder() {}

  public ShopOrder(String id, String type) {
    this.id = id;
    this.type = type;
  }

  /** Counts a step and raises its event. */
  public void step() {
    registerEvent(new OrderStepped(id, steps++));
  }

  public String getId() {
    return id;
  }

  @Override
  public String aggregateType() {
    return type;
  }

  @Override
  public String aggregateId() {
    return id;
  }
}
