package com.example.orders;

import java.math.BigDecimal;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;

/**
 * The quick start: Spring Boot migrates the database and starts the outbox; this places one order
 * and prints its {@code order.placed} event as a consumer receives it from RabbitMQ, then stops.
 *
 * <pre>
 * mvn -q spring-boot:run
 * mvn -q spring-boot:run -Dspring-boot.run.arguments="--spring.datasource.url=jdbc:postgresql://db:5432/shop --spring.datasource.username=app --spring.datasource.password=… --outbox.rabbitmq.uri=amqp://app:…@rabbit:5672/%2F"
 * </pre>
 */
@SpringBootApplication
public class OrdersApplication {

  /**
   * Runs the quick start once.
   *
   * @param args Spring Boot's, for example {@code --spring.datasource.url=…}
   * @throws Exception when a server cannot be reached or refuses
   */
  public static void main(String[] args) throws Exception {
    String received;
    try (ConfigurableApplicationContext context =
        SpringApplication.run(OrdersApplication.class, args)) {
      received = context.getBean(FirstOrder.class).placeAndReceiveItsEvent();
    } // the outbox closes with the context: the batch in flight finishes
    if (received == null) {
      System.out.println("No event arrived within 30 s: the outbox's warnings above say why.");
      System.exit(1);
    }
    System.out.println("Received " + received);
  }

  /** Places one order and waits for its event, as a consumer of the exchange sees it. */
  @Component
  static class FirstOrder {

    private final OrderService orders;
    private final String amqpUri;
    private final String exchange;

    FirstOrder(
        OrderService orders,
        @Value("${outbox.rabbitmq.uri}") String amqpUri,
        @Value("${outbox.rabbitmq.exchange}") String exchange) {
      this.orders = orders;
      this.amqpUri = amqpUri;
      this.exchange = exchange;
    }

    /**
     * Places one order and waits for its event to arrive through RabbitMQ.
     *
     * @return the event as received, or {@code null} when it did not arrive within 30 s
     * @throws Exception when RabbitMQ cannot be reached or refuses
     */
    String placeAndReceiveItsEvent() throws Exception {
      try (OrderEvents events = OrderEvents.subscribe(amqpUri, exchange, "order.placed")) {
        Order order = orders.place(new BigDecimal("12.50"));
        return events.await(order.id().toString(), Duration.ofSeconds(30));
      }
    }
  }
}
