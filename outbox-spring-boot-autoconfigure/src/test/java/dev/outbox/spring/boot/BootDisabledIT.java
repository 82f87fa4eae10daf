package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.Outbox;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spring.boot.shop.ShopApplication;
import dev.outbox.spring.boot.shop.ShopOrders;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code outbox.enabled=false}: the application runs, its repositories save as before, and the
 * outbox neither starts nor harvests. The outbox tables named here do not exist, so a flush that
 * still wrote events would fail the transaction.
 */
class BootDisabledIT {

  private static final String OUTBOX_TABLE = "boot_off_outbox";

  @BeforeAll
  static void database() {
    RequiredServer.assumePostgres();
    BootTables.drop(OUTBOX_TABLE, "boot_off_dead_letters");
  }

  private static Map<String, Object> properties() {
    Map<String, Object> properties = BootTables.database();
    properties.put("outbox.enabled", "false");
    properties.put("outbox.outbox-table", OUTBOX_TABLE);
    properties.put("outbox.dead-letter-table", "boot_off_dead_letters");
    properties.put("outbox.broker", "kafka");
    return properties;
  }

  @Test
  void nothingIsWrittenNorStartedAndTheApplicationSavesAsBefore() throws Exception {
    String id = "off-" + UUID.randomUUID();
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(ShopApplication.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .properties(properties())
            .run()) {
      assertThat(app.getBeansOfType(Outbox.class)).isEmpty();
      assertThat(app.getBeansOfType(EventPublisher.class)).isEmpty();
      assertThat(app.getBeansOfType(OutboxLifecycle.class)).isEmpty();

      app.getBean(ShopService.class).place(id, "boot-off", 3);

      assertThat(app.getBean(ShopOrders.class).findById(id)).isPresent();
    }
    try (Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        ResultSet tables = db.getMetaData().getTables(null, null, OUTBOX_TABLE, null)) {
      assertThat(tables.next()).as("no outbox table created").isFalse();
    }
  }
}
