package dev.outbox.hibernate.testing;

import dev.outbox.AggregateRoot;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderColumn;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/** A test aggregate with children. */
@Entity
@Table(name = "test_orders")
public class PurchaseOrder extends AggregateRoot {

  @Id private Long id;
  private String status;
  private BigDecimal total;

  @OneToMany(cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  @OrderColumn(name = "line_index")
  private List<OrderLine> lines = new ArrayList<>();

  protected PurchaseOrder() {}

  /** A new order that announces it was placed. */
  public static PurchaseOrder place(long id, BigDecimal total) {
    PurchaseOrder order = new PurchaseOrder();
    order.id = id;
    order.status = "PLACED";
    order.total = total;
    order.registerEvent(new TestEvents.OrderPlaced(id, total));
    return order;
  }

  /** Changes the order's own row. */
  public void cancel(String reason) {
    status = "CANCELLED";
    registerEvent(new TestEvents.OrderCancelled(id, reason));
  }

  /** Changes only a child row. */
  public void addLine(long lineId, String sku) {
    lines.add(new OrderLine(lineId, sku));
    registerEvent(new TestEvents.OrderLineAdded(id, sku));
  }

  /** Adds one to the total and announces the new total: a change of the aggregate's own row. */
  public void bump() {
    total = total.add(BigDecimal.ONE);
    registerEvent(new TestEvents.Noted(Integer.toString(total.intValue())));
  }

  /** Registers any event without changing persistent state. */
  public void announce(dev.outbox.DomainEvent event) {
    registerEvent(event);
  }

  public Long getId() {
    return id;
  }

  public String getStatus() {
    return status;
  }

  public List<OrderLine> getLines() {
    return lines;
  }
}
