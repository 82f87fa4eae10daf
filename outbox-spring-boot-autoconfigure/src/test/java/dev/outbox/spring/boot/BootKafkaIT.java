package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.kafka.testing.EmbeddedKafka;
import dev.outbox.kafka.testing.TestConsumer;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.TestRestTemplate;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureTestRestTemplate;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A real Spring Boot application (Spring Data JPA on PostgreSQL, Spring MVC on a random port) with
 * the outbox publishing to a Kafka broker in this JVM: orders saved through a repository inside
 * {@code @Transactional} arrive once and in order, a rolled-back transaction publishes nothing, and
 * the health and the {@code outbox} endpoint answer over HTTP, a dead letter replayed through it
 * included. All four adapters are on this module's classpath, so {@code outbox.broker} chooses.
 */
@SpringBootTest(
    classes = ShopApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRestTemplate
class BootKafkaIT {

  private static EmbeddedKafka kafka;

  @Autowired private ShopService shop;
  @Autowired private TestRestTemplate http;
  @Autowired private Outbox outbox;

  @BeforeAll
  static void startKafka() {
    RequiredServer.assumePostgres();
    BootTables.drop("boot_outbox", "boot_dead_letters");
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  static void stopKafka() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    BootTables.register(registry, "boot_outbox", "boot_dead_letters");
    registry.add("outbox.broker", () -> "kafka");
    registry.add("outbox.kafka.bootstrap-servers", () -> kafka.bootstrapServers());
    registry.add("outbox.kafka.metadata-timeout", () -> "500ms");
    registry.add("outbox.max-attempts", () -> "2");
    registry.add("outbox.retry-initial-delay", () -> "100ms");
  }

  @Test
  void ordersSavedInTransactionsArriveOnceInOrderAndARollbackPublishesNothing() {
    String type = "boot-orders-" + UUID.randomUUID().toString().substring(0, 8);
    kafka.createTopic(type, 3);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String id = type + "-" + i;
      ids.add(id);
      shop.place(id, type, 3);
    }
    ids.forEach(id -> shop.step(id, 2));
    assertThatThrownBy(() -> shop.placeAndFail(type + "-rolled-back", type))
        .hasMessageContaining("payment declined");

    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      List<ConsumerRecord<String, byte[]>> records = consumer.poll(50, Duration.ofSeconds(60));
      assertThat(records).hasSize(50);
      Map<String, List<Long>> steps = new HashMap<>();
      Set<String> messageIds = new HashSet<>();
      for (ConsumerRecord<String, byte[]> record : records) {
        messageIds.add(TestConsumer.headers(record).get("outbox-message-id"));
        String body = new String(record.value(), StandardCharsets.UTF_8);
        long step = Long.parseLong(body.replaceAll(".*\"step\":(\\d+).*", "$1"));
        steps.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(step);
      }
      assertThat(messageIds).as("each event once").hasSize(50);
      assertThat(steps.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      steps.forEach(
          (order, seen) ->
              assertThat(seen).as("order of %s", order).containsExactly(0L, 1L, 2L, 3L, 4L));
      assertThat(consumer.poll(1, Duration.ofSeconds(2))).as("nothing of the rollback").isEmpty();
    }
  }

  @Test
  void healthAndStatusAnswerOverHttp() {
    ResponseEntity<Map> health = http.getForEntity("/actuator/health/outbox", Map.class);
    assertThat(health.getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(health.getBody()).containsEntry("status", "UP");
    @SuppressWarnings("unchecked")
    Map<String, Object> details = (Map<String, Object>) health.getBody().get("details");
    assertThat(details)
        .containsEntry("running", true)
        .containsEntry("deliveryMode", "POLLING")
        .containsKeys("pending", "lag", "deadLetters");

    ResponseEntity<Map> status = http.getForEntity("/actuator/outbox", Map.class);
    assertThat(status.getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(status.getBody())
        .containsEntry("running", true)
        .containsEntry("instanceId", outbox.health().instanceId())
        .containsKeys("pending", "aggregatesRetrying", "aggregatesHeld", "leases");
  }

  @Test
  void badRequestsToTheEndpointAreAnswered400AndChangeNothing() {
    ResponseEntity<Map> since = http.getForEntity(list("x") + "&since=yesterday", Map.class);
    assertThat(since.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    assertThat(since.getBody())
        .containsEntry("parameter", "since")
        .containsEntry("value", "yesterday")
        .containsEntry(
            "accepted",
            "an ISO-8601 instant (2026-11-26T08:00:00Z), a date (2026-11-26, UTC) or how long ago"
                + " (30m, 2h, 1d, PT2H)");
    ResponseEntity<Map> limit = http.getForEntity(list("x") + "&limit=0", Map.class);
    assertThat(limit.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    assertThat(limit.getBody())
        .containsEntry("parameter", "limit")
        .containsEntry("value", "0")
        .containsEntry("accepted", "an integer from 1 to 10000");
    assertThat(http.getForEntity(list("x") + "&offset=first", Map.class).getBody())
        .containsEntry("parameter", "offset")
        .containsEntry("value", "first");
    ResponseEntity<Map> none =
        http.postForEntity("/actuator/outbox/dead-letters/purge", Map.of(), Map.class);
    assertThat(none.getStatusCode())
        .as("neither ids nor filters nor all")
        .isEqualTo(HttpStatus.BAD_REQUEST);
    assertThat((String) none.getBody().get("message"))
        .startsWith("ids, filters, all must be ids, or filters (eventType,");
    assertThat(
            http.postForEntity(
                    "/actuator/outbox/dead-letters/purge", Map.of("error", " "), Map.class)
                .getStatusCode())
        .as("a blank filter filters nothing: not a purge of everything")
        .isEqualTo(HttpStatus.BAD_REQUEST);
    assertThat(
            http.postForEntity(
                    "/actuator/outbox/dead-letters/replay",
                    Map.of("ids", Arrays.asList((String) null)),
                    Map.class)
                .getStatusCode())
        .isEqualTo(HttpStatus.BAD_REQUEST);
    assertThat(
            http.postForEntity(
                    "/actuator/outbox/dead-letters/replay", Map.of("ids", "not-an-id"), Map.class)
                .getBody())
        .containsEntry("status", 400)
        .containsEntry("parameter", "ids")
        .containsEntry("value", "not-an-id");
  }

  @Test
  void aDeadLetterIsListedReplayedThroughTheEndpointAndDelivered() {
    String type = "boot-missing-" + UUID.randomUUID().toString().substring(0, 8);
    shop.place(type + "-1", type, 1);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> total(http.getForEntity(list(type), Map.class).getBody()) == 1);
    Map<?, ?> page = http.getForEntity(list(type), Map.class).getBody();
    Map<?, ?> letter = (Map<?, ?>) ((List<?>) page.get("deadLetters")).get(0);
    assertThat(letter.get("aggregateId")).isEqualTo(type + "-1");
    assertThat((String) letter.get("lastError")).containsIgnoringCase("metadata");
    ResponseEntity<Map> shown =
        http.getForEntity("/actuator/outbox/dead-letters/" + letter.get("id"), Map.class);
    assertThat(shown.getBody()).containsKeys("payload", "headers");
    assertThat(total(http.getForEntity(list(type) + "&since=2h", Map.class).getBody()))
        .as("dead-lettered less than two hours ago")
        .isOne();
    assertThat(total(http.getForEntity(list(type) + "&until=PT24H", Map.class).getBody()))
        .as("not dead-lettered more than a day ago")
        .isZero();

    kafka.createTopic(type, 1);
    ResponseEntity<Map> unknown =
        http.postForEntity(
            "/actuator/outbox/dead-letters/replay",
            Map.of("ids", UUID.randomUUID().toString()),
            Map.class);
    assertThat(unknown.getBody()).as("an id no dead letter has").containsEntry("replayed", 0);
    ResponseEntity<Map> replayed =
        http.postForEntity(
            "/actuator/outbox/dead-letters/replay",
            Map.of("ids", UUID.randomUUID() + "," + letter.get("id")),
            Map.class);
    assertThat(replayed.getStatusCode().is2xxSuccessful()).as("%s", replayed).isTrue();
    assertThat(replayed.getBody()).containsEntry("replayed", 1);

    try (TestConsumer consumer = new TestConsumer(kafka.bootstrapServers(), type)) {
      List<ConsumerRecord<String, byte[]>> records = consumer.poll(1, Duration.ofSeconds(60));
      assertThat(records)
          .singleElement()
          .satisfies(r -> assertThat(r.key()).isEqualTo(type + "-1"));
      assertThat(TestConsumer.headers(records.get(0)))
          .containsEntry("outbox-message-id", String.valueOf(letter.get("id")));
    }
    assertThat(total(http.getForEntity(list(type), Map.class).getBody())).isZero();
  }

  private static String list(String type) {
    return "/actuator/outbox/dead-letters?aggregateType=" + type;
  }

  private static long total(Map<?, ?> page) {
    return ((Number) page.get("total")).longValue();
  }
}
