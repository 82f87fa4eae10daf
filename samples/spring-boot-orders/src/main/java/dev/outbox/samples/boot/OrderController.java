package dev.outbox.samples.boot;

import java.math.BigDecimal;
import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders {"customer": "ada", "total": 12.50}} places an order; {@code POST
 * /orders/{id}/cancel {"reason": "..."}} cancels it.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

  /**
   * What a client sends to place an order.
   *
   * @param customer who places it
   * @param total its amount
   */
  public record PlaceOrder(String customer, BigDecimal total) {}

  /**
   * What a client sends to cancel one.
   *
   * @param reason why
   */
  public record CancelOrder(String reason) {}

  private final OrderService service;

  /**
   * The controller.
   *
   * @param service the orders
   */
  public OrderController(OrderService service) {
    this.service = service;
  }

  /**
   * Places an order.
   *
   * @param request customer and total
   * @return 201 with the order's id
   */
  @PostMapping
  public ResponseEntity<Map<String, Object>> place(@RequestBody PlaceOrder request) {
    Order order = service.place(request.customer(), request.total());
    return ResponseEntity.created(URI.create("/orders/" + order.getId()))
        .body(Map.of("id", order.getId(), "customer", order.getCustomer()));
  }

  /**
   * Cancels an order.
   *
   * @param id the order
   * @param request the reason
   * @return the order's id and state
   */
  @PostMapping("/{id}/cancel")
  public Map<String, Object> cancel(@PathVariable long id, @RequestBody CancelOrder request) {
    Order order = service.cancel(id, request.reason());
    return Map.of("id", order.getId(), "cancelled", order.isCancelled());
  }

  /** A bad request names what is wrong. */
  @ExceptionHandler({IllegalArgumentException.class, IllegalStateException.class})
  ResponseEntity<Map<String, String>> badRequest(RuntimeException e) {
    return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", e.getMessage()));
  }
}
