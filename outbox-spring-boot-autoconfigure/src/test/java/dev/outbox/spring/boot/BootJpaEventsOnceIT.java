package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxException;
import dev.outbox.jdbc.JdbcOutbox;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.spring.boot.shop.ShopDesk;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The JPA application with Spring Data JDBC on the classpath too: Hibernate's flush writes the JPA
 * aggregates' events and what {@link OutboxEvents} sends, the Spring Data JDBC callback writes the
 * JDBC aggregates' events through the same session, and every event is one row, in order per
 * aggregate. The rows are counted in the outbox table, right after each commit.
 */
class BootJpaEventsOnceIT {

  private static final String OUTBOX_TABLE = "boot_once_messages";

  @BeforeAll
  static void servers() throws Exception {
    RequiredServer.assumePostgres();
    BootRabbit.assumeReachable();
    BootTables.drop(OUTBOX_TABLE, "boot_once_dead_letters");
    try (Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS boot_shop_parcels");
      statement.execute(
          "CREATE TABLE boot_shop_parcels (id bigserial PRIMARY KEY, label varchar(100) NOT NULL,"
              + " steps bigint NOT NULL)");
    }
  }

  private static ConfigurableApplicationContext start() {
    Map<String, Object> properties = BootTables.database();
    properties.put("outbox.broker", "rabbitmq");
    properties.put("outbox.rabbitmq.host", "127.0.0.1");
    properties.put("outbox.rabbitmq.exchange", "boot-once-" + UUID.randomUUID());
    properties.put("outbox.outbox-table", OUTBOX_TABLE);
    properties.put("outbox.dead-letter-table", "boot_once_dead_letters");
    properties.put("outbox.create-schema", "true");
    return new SpringApplicationBuilder(ShopApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .run();
  }

  @Test
  void everyEventIsOneRowInOrderPerAggregate() throws Exception {
    String type = "boot-once-" + UUID.randomUUID().toString().substring(0, 8);
    try (ConfigurableApplicationContext app = start()) {
      assertThat(app.getBeanNamesForType(EntityManagerFactory.class)).hasSize(1);
      assertThat(app.getBeanNamesForType(JdbcOutbox.class)).as("the JPA backend").isEmpty();
      assertThatThrownBy(
              () ->
                  app.getBean(OutboxEvents.class)
                      .send(type, "outside", new dev.outbox.spring.boot.shop.OrderStepped("x", 0)))
          .isInstanceOf(OutboxException.class)
          .hasMessageContaining("inside a @Transactional method");

      app.getBean(ShopService.class).place(type + "-a", type, 4);
      assertThat(steps(type, type + "-a")).containsExactly(0L, 1L, 2L, 3L);

      String label = type + "-parcel";
      long parcel = app.getBean(ShopDesk.class).placeAndShip(type + "-b", type, label);
      assertThat(steps(type, type + "-b"))
          .as("the order's two events and the one sent after them")
          .containsExactly(0L, 1L, 2L);
      assertThat(steps("ShopParcel", String.valueOf(parcel)))
          .as("the Spring Data JDBC aggregate's events, once")
          .containsExactly(0L, 1L, 2L);
      assertThat(steps(type, "outside")).isEmpty();
    }
  }

  /** The steps of an aggregate's rows, by seq. */
  private static List<Long> steps(String aggregateType, String aggregateId) throws Exception {
    List<Long> steps = new ArrayList<>();
    try (Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        PreparedStatement statement =
            db.prepareStatement(
                "SELECT payload FROM "
                    + OUTBOX_TABLE
                    + " WHERE aggregate_type = ? AND aggregate_id = ? ORDER BY seq")) {
      statement.setString(1, aggregateType);
      statement.setString(2, aggregateId);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          steps.add(BootRabbit.step(rows.getString(1)));
        }
      }
    }
    return steps;
  }
}
