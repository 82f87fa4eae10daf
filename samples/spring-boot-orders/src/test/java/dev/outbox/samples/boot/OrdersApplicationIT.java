package dev.outbox.samples.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The sample as {@code bin/run-spring-boot-sample} runs it, on its embedded PostgreSQL and Kafka:
 * an order placed and cancelled over HTTP arrives on the topic as two events, in order.
 */
class OrdersApplicationIT {

  @Test
  void anOrderPlacedAndCancelledOverHttpArrivesAsTwoEventsInOrder() {
    try (ConfigurableApplicationContext app = OrdersApplication.start("--server.port=0")) {
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      RestClient http = RestClient.create("http://127.0.0.1:" + port);

      Map<?, ?> placed =
          http.post()
              .uri("/orders")
              .contentType(MediaType.APPLICATION_JSON)
              .body(Map.of("customer", "ada", "total", 12.5))
              .retrieve()
              .body(Map.class);
      String id = String.valueOf(placed.get("id"));
      http.post()
          .uri("/orders/" + id + "/cancel")
          .contentType(MediaType.APPLICATION_JSON)
          .body(Map.of("reason", "changed my mind"))
          .retrieve()
          .toBodilessEntity();

      DeliveredEvents events = app.getBean(DeliveredEvents.class);
      await().atMost(Duration.ofSeconds(60)).until(() -> events.received().size() >= 2);
      assertThat(events.received())
          .extracting(DeliveredEvents.Delivered::eventType, DeliveredEvents.Delivered::orderId)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("order.placed", id),
              org.assertj.core.groups.Tuple.tuple("order.cancelled", id));
      Map<?, ?> health = http.get().uri("/actuator/health/outbox").retrieve().body(Map.class);
      assertThat(health.get("status")).isEqualTo("UP");
    }
  }
}
