package dev.outbox.samples;

import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.util.Objects;

/** A line of an {@link Order}: a child entity of the aggregate, not an aggregate itself. */
@Entity(name = "SampleOrderLine")
@Table(name = "sample_order_lines")
public class OrderLine {

  /**
   * What a line orders.
   *
   * @param sku the article
   * @param quantity how many, at least one
   * @param unitPrice the price of one
   */
  public record Item(String sku, int quantity, BigDecimal unitPrice) {
    /** Validates the item. */
    public Item {
      Objects.requireNonNull(sku, "sku");
      Objects.requireNonNull(unitPrice, "unitPrice");
      if (quantity < 1) {
        throw new IllegalArgumentException("quantity must be >= 1, but was " + quantity);
      }
    }
  }

  @Id private String id;

  @ManyToOne(fetch = FetchType.LAZY, optional = false)
  private Order order;

  private int lineNo;
  private String sku;
  private int quantity;
  private BigDecimal unitPrice;

  /** For JPA. */
  protected OrderLine() {}

  OrderLine(Order order, int lineNo, Item item) {
    this.id = order.id() + "/" + lineNo;
    this.order = order;
    this.lineNo = lineNo;
    this.sku = item.sku();
    this.quantity = item.quantity();
    this.unitPrice = item.unitPrice();
  }

  /**
   * The line's number within its order, from 1.
   *
   * @return the number
   */
  public int lineNo() {
    return lineNo;
  }

  /**
   * Quantity times unit price.
   *
   * @return the amount
   */
  public BigDecimal amount() {
    return unitPrice.multiply(BigDecimal.valueOf(quantity));
  }
}
