package dev.outbox.spring.boot.shop;

import dev.outbox.spring.boot.OutboxEvents;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Mixes the ways an event reaches the outbox in a JPA application, in one transaction: a JPA
 * aggregate's events, a send through {@link OutboxEvents}, and a Spring Data JDBC aggregate's.
 */
@Service
public class ShopDesk {

  private final ShopOrders orders;
  private final ShopParcels parcels;
  private final ObjectProvider<OutboxEvents> outboxEvents;

  public ShopDesk(
      ShopOrders orders, ShopParcels parcels, ObjectProvider<OutboxEvents> outboxEvents) {
    this.orders = orders;
    this.parcels = parcels;
    this.outboxEvents = outboxEvents;
  }

  /**
   * An order with two steps, a third sent for it through {@link OutboxEvents}, and a parcel with
   * three steps; returns the parcel's id.
   */
  @Transactional
  public long placeAndShip(String orderId, String type, String label) {
    ShopOrder order = new ShopOrder(orderId, type);
    order.step();
    order.step();
    orders.save(order);
    outboxEvents.getObject().send(type, orderId, new OrderStepped(orderId, 2));
    ShopParcel parcel = new ShopParcel(label);
    parcel.step();
    parcel.step();
    parcel.step();
    return parcels.save(parcel).getId();
  }
}
