package dev.outbox.spring.boot.shop;

import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.PersistenceCreator;
import org.springframework.data.domain.AbstractAggregateRoot;
import org.springframework.data.relational.core.mapping.Table;

/**
 * A Spring Data JDBC aggregate in the JPA application, with Spring Data's domain events: aggregate
 * type {@code ShopParcel}, id the generated {@code @Id}.
 */
@Table("boot_shop_parcels")
public class ShopParcel extends AbstractAggregateRoot<ShopParcel> {

  @Id private Long id;
  private String label;
  private long steps;

  @PersistenceCreator
  ShopParcel() {}

  public ShopParcel(String label) {
    this.label = label;
  }

  /** Counts a step and raises its event. */
  public void step() {
    andEvent(new OrderStepped(label, steps++));
  }

  public Long getId() {
    return id;
  }
}
