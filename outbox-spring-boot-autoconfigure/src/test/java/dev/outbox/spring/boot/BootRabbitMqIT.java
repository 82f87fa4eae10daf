package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A Spring Boot application on PostgreSQL and RabbitMQ with the outbox's default tables, created by
 * the shipped Flyway migration: orders saved in {@code @Transactional} services arrive once and in
 * order; a rollback publishes nothing; closing the context finishes the batch in flight and leaves
 * no lease, so the next application delivers the rest at once.
 */
class BootRabbitMqIT {

  private static final String EXCHANGE = "boot-it-" + UUID.randomUUID().toString().substring(0, 8);

  private static Connection rabbit;
  private static Channel channel;
  private static String queue;

  @BeforeAll
  static void servers() throws Exception {
    RequiredServer.assumePostgres();
    RequiredServer.assumeReachable(
        "RabbitMQ",
        "127.0.0.1",
        5672,
        "rabbitmq-server (guest/guest), e.g. 'start-stop-daemon --start --oknodo --background"
            + " --exec /usr/sbin/rabbitmq-server'");
    BootTables.drop("outbox_messages", "outbox_dead_letters");
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + OutboxFlywayAutoConfiguration.HISTORY_TABLE);
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    rabbit = factory.newConnection("boot-it");
    channel = rabbit.createChannel();
    channel.exchangeDeclare(EXCHANGE, "topic", true);
    queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, EXCHANGE, "#");
  }

  @AfterAll
  static void close() throws Exception {
    if (rabbit != null) {
      channel.exchangeDelete(EXCHANGE);
      rabbit.close();
    }
  }

  private static ConfigurableApplicationContext start() {
    Map<String, Object> properties = BootTables.database();
    properties.put("outbox.broker", "rabbitmq");
    properties.put("outbox.rabbitmq.host", "127.0.0.1");
    properties.put("outbox.rabbitmq.exchange", EXCHANGE);
    properties.put("outbox.poll-interval", "100ms");
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .run();
  }

  @Test
  void ordersArriveOnceInOrderAndShutdownFinishesTheBatchInFlight() throws Exception {
    String type = "boot-rabbit-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> ids = new ArrayList<>();
    try (ConfigurableApplicationContext first = start()) {
      ShopService shop = first.getBean(ShopService.class);
      assertThatThrownBy(() -> shop.placeAndFail(type + "-rolled-back", type))
          .hasMessageContaining("payment declined");
      for (int i = 0; i < 40; i++) {
        ids.add(type + "-" + i);
        shop.place(type + "-" + i, type, 5);
      }
    }
    OutboxOptions defaults = OutboxOptions.builder().vacuumThreshold(0).build();
    DriverManagerDataSource dataSource =
        new DriverManagerDataSource(BootTables.URL, "postgres", "");
    assertThat(OutboxTables.store(dataSource, defaults).aggregateCounts().leasesByInstance())
        .as("closing released every lease")
        .isEmpty();
    assertThat(migratedVersions()).as("the shipped migration ran through Flyway").contains("1");

    try (ConfigurableApplicationContext second = start()) {
      Map<String, List<Long>> steps = new HashMap<>();
      Set<String> messageIds = new HashSet<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int received = 0;
      while (received < 200 && System.nanoTime() < deadline) {
        GetResponse response = channel.basicGet(queue, true);
        if (response == null) {
          Thread.sleep(50);
          continue;
        }
        received++;
        messageIds.add(response.getProps().getMessageId());
        String aggregate =
            String.valueOf(response.getProps().getHeaders().get("outbox-aggregate-id"));
        String body = new String(response.getBody(), StandardCharsets.UTF_8);
        steps
            .computeIfAbsent(aggregate, k -> new ArrayList<>())
            .add(Long.parseLong(body.replaceAll(".*\"step\":(\\d+).*", "$1")));
      }
      assertThat(received).isEqualTo(200);
      assertThat(messageIds).as("each once").hasSize(200);
      assertThat(steps.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      steps.forEach(
          (order, seen) ->
              assertThat(seen).as("order of %s", order).containsExactly(0L, 1L, 2L, 3L, 4L));
      Thread.sleep(500);
      assertThat(channel.basicGet(queue, true))
          .as("nothing more, nothing of the rollback")
          .isNull();
    }
  }

  private static List<String> migratedVersions() throws Exception {
    List<String> versions = new ArrayList<>();
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT version FROM "
                    + OutboxFlywayAutoConfiguration.HISTORY_TABLE
                    + " WHERE success")) {
      while (rows.next()) {
        versions.add(rows.getString(1));
      }
    }
    return versions;
  }
}
