package dev.outbox.samples;

import dev.outbox.AggregateRoot;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * An order: the aggregate root. Every change registers an event; the outbox writes it in the same
 * transaction as the change.
 *
 * <p>Each event carries {@code sequence}, the number of events the order has raised so far, derived
 * from the order's state (1 for the placement, one more per added line, one more for the
 * cancellation). Consumers use it to check order per aggregate. Adding a line changes only a child
 * row: the order's own row is not updated, and the event is harvested all the same.
 *
 * <p>No {@code @Version}: in this sample one thread owns an order. If concurrent transactions could
 * add lines to one order, a version would make the database order them.
 */
@Entity(name = "SampleOrder")
@Table(name = "sample_orders")
public class Order extends AggregateRoot {

  /** The aggregate type on the wire (Kafka topic suffix, NATS subject token, ...). */
  public static final String AGGREGATE_TYPE = "Order";

  /** The life cycle of an order. */
  public enum Status {
    /** Placed and open. */
    PLACED,
    /** Cancelled; no more changes. */
    CANCELLED
  }

  @Id private String id;

  private String customer;

  @Enumerated(EnumType.STRING)
  private Status status;

  private int placedLineCount;

  @OneToMany(mappedBy = "order", cascade = CascadeType.ALL, orphanRemoval = true)
  @OrderBy("lineNo")
  private List<OrderLine> lines = new ArrayList<>();

  /** For JPA. */
  protected Order() {}

  /**
   * Places a new order and registers {@link OrderPlaced}.
   *
   * @param id the order id, the aggregate id on the wire
   * @param customer who ordered
   * @param items the first lines, at least one
   * @return the new order, to persist
   */
  public static Order place(String id, String customer, List<OrderLine.Item> items) {
    if (items.isEmpty()) {
      throw new IllegalArgumentException("an order needs at least one line");
    }
    Order order = new Order();
    order.id = id;
    order.customer = customer;
    order.status = Status.PLACED;
    items.forEach(order::appendLine);
    order.placedLineCount = items.size();
    order.registerEvent(
        new OrderPlaced(id, customer, items.size(), order.total(), order.eventsSoFar()));
    return order;
  }

  /**
   * Adds a line (a new child row only) and registers {@link OrderLineAdded}.
   *
   * @param item the line to add
   */
  public void addLine(OrderLine.Item item) {
    requireOpen();
    OrderLine line = appendLine(item);
    registerEvent(
        new OrderLineAdded(
            id, line.lineNo(), item.sku(), item.quantity(), item.unitPrice(), eventsSoFar()));
  }

  /**
   * Cancels the order and registers {@link OrderCancelled}.
   *
   * @param reason why
   */
  public void cancel(String reason) {
    requireOpen();
    status = Status.CANCELLED;
    registerEvent(new OrderCancelled(id, reason, eventsSoFar()));
  }

  @Override
  public String aggregateType() {
    return AGGREGATE_TYPE;
  }

  /**
   * The order id.
   *
   * @return the id
   */
  public String id() {
    return id;
  }

  /**
   * The status.
   *
   * @return placed or cancelled
   */
  public Status status() {
    return status;
  }

  /**
   * The sum of quantity times unit price over the lines.
   *
   * @return the total
   */
  public BigDecimal total() {
    return lines.stream().map(OrderLine::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
  }

  private OrderLine appendLine(OrderLine.Item item) {
    OrderLine line = new OrderLine(this, lines.size() + 1, item);
    lines.add(line);
    return line;
  }

  private int eventsSoFar() {
    int added = lines.size() - placedLineCount;
    return 1 + Math.max(added, 0) + (status == Status.CANCELLED ? 1 : 0);
  }

  private void requireOpen() {
    if (status == Status.CANCELLED) {
      throw new IllegalStateException("order " + id + " is cancelled");
    }
  }
}
