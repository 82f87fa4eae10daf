package com.example.orders;

import java.math.BigDecimal;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order and its {@code order.placed} event commit together, or neither. */
@Service
public class OrderService {

  private final OrderRepository orders;

  OrderService(OrderRepository orders) {
    this.orders = orders;
  }

  /**
   * Places an order.
   *
   * @param total what it costs
   * @return the order, committed with its event
   */
  @Transactional
  public Order place(BigDecimal total) {
    return orders.save(Order.place(total));
  }
}
