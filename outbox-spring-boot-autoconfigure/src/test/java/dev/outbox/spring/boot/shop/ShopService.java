package dev.outbox.spring.boot.shop;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places and steps orders in {@code @Transactional} methods, as an application service does. */
@Service
public class ShopService {

  private final ShopOrders orders;

  public ShopService(ShopOrders orders) {
    this.orders = orders;
  }

  /** A new order with {@code steps} events, in one transaction. */
  @Transactional
  public void place(String id, String type, int steps) {
    ShopOrder order = new ShopOrder(id, type);
    for (int i = 0; i < steps; i++) {
      order.step();
    }
    orders.save(order);
  }

  /** More events on an existing order, in one transaction. */
  @Transactional
  public void step(String id, int steps) {
    ShopOrder order = orders.findById(id).orElseThrow();
    for (int i = 0; i < steps; i++) {
      order.step();
    }
  }

  /** Saves an order with an event, flushes, then fails: the transaction rolls back. */
  @Transactional
  public void placeAndFail(String id, String type) {
    ShopOrder order = new ShopOrder(id, type);
    order.step();
    orders.saveAndFlush(order);
    throw new IllegalStateException("payment declined");
  }
}
