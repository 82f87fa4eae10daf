package dev.outbox.samples;

import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;

/**
 * Changes orders in ordinary JPA transactions. Nothing here knows about the outbox or the broker:
 * the aggregate registers events, and the flush at commit writes them to the outbox table.
 */
public final class OrderService {

  private final EntityManagerFactory emf;

  /**
   * A service on a persistence unit that has the outbox integrated.
   *
   * @param emf the entity manager factory
   */
  @Inject
  public OrderService(EntityManagerFactory emf) {
    this.emf = emf;
  }

  /**
   * Places an order in one transaction.
   *
   * @param orderId the new order's id
   * @param customer who orders
   * @param items its lines
   */
  public void place(String orderId, String customer, List<OrderLine.Item> items) {
    emf.runInTransaction(em -> em.persist(Order.place(orderId, customer, items)));
  }

  /**
   * Adds a line to an order in one transaction.
   *
   * @param orderId the order
   * @param item the line
   */
  public void addLine(String orderId, OrderLine.Item item) {
    emf.runInTransaction(em -> find(em, orderId).addLine(item));
  }

  /**
   * Cancels an order in one transaction.
   *
   * @param orderId the order
   * @param reason why
   */
  public void cancel(String orderId, String reason) {
    emf.runInTransaction(em -> find(em, orderId).cancel(reason));
  }

  private static Order find(jakarta.persistence.EntityManager em, String orderId) {
    Order order = em.find(Order.class, orderId);
    if (order == null) {
      throw new IllegalArgumentException("no order " + orderId);
    }
    return order;
  }
}
