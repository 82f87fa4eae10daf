package dev.outbox.spring.boot.billing;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** What billing keeps per order: how many steps it invoiced, the last one. */
@Entity
@Table(name = "boot_billed_orders")
public class BilledOrder {

  @Id
  @Column(length = 100)
  private String orderId;

  @Column(nullable = false)
  private long invoices;

  @Column(nullable = false)
  private long lastStep = -1;

  protected BilledOrder() {}

  public BilledOrder(String orderId) {
    this.orderId = orderId;
  }

  /**
   * Invoices a step, which must be the one after the last.
   *
   * @throws IllegalStateException when a step comes out of order
   */
  public void bill(long step) {
    if (step != lastStep + 1) {
      throw new IllegalStateException(
          "Order " + orderId + " step " + step + " billed after step " + lastStep);
    }
    lastStep = step;
    invoices++;
  }

  public long getInvoices() {
    return invoices;
  }

  public long getLastStep() {
    return lastStep;
  }
}
