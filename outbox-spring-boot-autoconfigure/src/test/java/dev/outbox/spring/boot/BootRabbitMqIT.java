package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.OutboxTables;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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

  private static BootRabbit rabbit;

  @BeforeAll
  static void servers() throws Exception {
    RequiredServer.assumePostgres();
    BootRabbit.assumeReachable();
    BootTables.drop("outbox_messages", "outbox_dead_letters");
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + OutboxFlywayAutoConfiguration.HISTORY_TABLE);
    }
    rabbit = BootRabbit.open("boot-it");
  }

  @AfterAll
  static void close() throws Exception {
    if (rabbit != null) {
      rabbit.close();
    }
  }

  private static ConfigurableApplicationContext start() {
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(rabbit.outboxProperties())
        .run();
  }

  @Test
  void ordersArriveOnceInOrderAndShutdownFinishesTheBatchInFlight() throws Exception {
    String type = "boot-rabbit-" + UUID.randomUUID().toString().substring(0, 8);
    List<String> aggregates = new ArrayList<>();
    try (ConfigurableApplicationContext first = start()) {
      ShopService shop = first.getBean(ShopService.class);
      assertThatThrownBy(() -> shop.placeAndFail(type + "-rolled-back", type))
          .hasMessageContaining("payment declined");
      for (int i = 0; i < 40; i++) {
        aggregates.add(type + "/" + type + "-" + i);
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
      BootRabbit.Received received = rabbit.receive(200);
      assertThat(received.count()).isEqualTo(200);
      assertThat(received.messageIds()).as("each once").hasSize(200);
      assertThat(received.steps().keySet()).containsExactlyInAnyOrderElementsOf(aggregates);
      received
          .steps()
          .forEach(
              (order, seen) ->
                  assertThat(seen).as("order of %s", order).containsExactly(0L, 1L, 2L, 3L, 4L));
      assertThat(rabbit.quiet()).as("nothing more, nothing of the rollback").isTrue();
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
