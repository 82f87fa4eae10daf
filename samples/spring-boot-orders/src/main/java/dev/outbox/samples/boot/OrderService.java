package dev.outbox.samples.boot;

import java.math.BigDecimal;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places and cancels orders. Each method is one transaction: the order's row and its event's outbox
 * row commit together, or neither does.
 */
@Service
public class OrderService {

  private final OrderRepository orders;

  /**
   * The service.
   *
   * @param orders the repository
   */
  public OrderService(OrderRepository orders) {
    this.orders = orders;
  }

  /**
   * Places an order.
   *
   * @param customer who places it
   * @param total its amount, more than zero
   * @return the saved order
   */
  @Transactional
  public Order place(String customer, BigDecimal total) {
    if (customer == null || customer.isBlank() || total == null || total.signum() <= 0) {
      throw new IllegalArgumentException("an order needs a customer and a total above zero");
    }
    Order order = orders.save(Order.of(customer, total));
    order.placed();
    return order;
  }

  /**
   * Cancels an order.
   *
   * @param id the order
   * @param reason why
   * @return the order
   */
  @Transactional
  public Order cancel(long id, String reason) {
    Order order =
        orders.findById(id).orElseThrow(() -> new IllegalArgumentException("no order " + id));
    order.cancel(reason == null ? "no reason given" : reason);
    return order;
  }
}
