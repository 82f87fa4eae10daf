package dev.outbox.hibernate.testing;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A child entity of {@link PurchaseOrder}. */
@Entity
@Table(name = "test_order_lines")
public class OrderLine {

  @Id private Long id;
  private String sku;

  protected OrderLine() {}

  OrderLine(long id, String sku) {
    this.id = id;
    this.sku = sku;
  }

  public String getSku() {
    return sku;
  }
}
