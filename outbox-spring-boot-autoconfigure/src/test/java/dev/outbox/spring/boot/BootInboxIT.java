package dev.outbox.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox.spring.boot.billing.BilledOrder;
import dev.outbox.spring.boot.billing.BilledOrders;
import dev.outbox.spring.boot.billing.BillingApplication;
import dev.outbox.spring.boot.billing.BillingListener;
import dev.outbox.spring.boot.shop.ShopService;
import dev.outbox.testkit.RequiredServer;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot service on PostgreSQL and RabbitMQ that consumes through the inbox: a
 * {@code @RabbitListener} in a {@code @Transactional} method bills each order step (a JPA entity)
 * and raises an invoice event through {@link OutboxEvents}, with the inbox's position, in one
 * transaction. Every order event is delivered twice (the broker's copy and a republished one), a
 * few fail once after all their effects, and gaps are redelivered by the container ({@code
 * gap-policy=fail}): each step is billed exactly once and in order, and exactly one invoice event
 * is written per step.
 */
class BootInboxIT {

  private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
  private static final String OUTBOX_TABLE = "boot_billing_messages";
  private static final String DEAD_LETTERS = "boot_billing_dead_letters";
  private static final String POSITIONS = "boot_billing_positions";
  private static final String IDS = "boot_billing_ids";
  private static final int ORDERS = 5;
  private static final int STEPS = 6;

  private static BootRabbit rabbit;
  private static Connection amqp;
  private static Channel channel;
  private static final String BILLING_QUEUE = "boot-billing-" + SUFFIX;
  private static final String COPIES_QUEUE = "boot-billing-copies-" + SUFFIX;

  @BeforeAll
  static void servers() throws Exception {
    RequiredServer.assumePostgres();
    BootRabbit.assumeReachable();
    dropTables();
    rabbit = BootRabbit.open("boot-inbox-it");
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    amqp = factory.newConnection("boot-inbox-it");
    channel = amqp.createChannel();
    for (String queue : List.of(BILLING_QUEUE, COPIES_QUEUE)) {
      channel.queueDeclare(queue, false, false, false, null);
      channel.queueBind(queue, rabbit.exchange, "order.stepped");
    }
  }

  @AfterAll
  static void close() throws Exception {
    if (channel != null) {
      channel.queueDelete(BILLING_QUEUE);
      channel.queueDelete(COPIES_QUEUE);
      amqp.close();
    }
    if (rabbit != null) {
      rabbit.close();
      dropTables();
    }
  }

  private static void dropTables() throws Exception {
    BootTables.drop(OUTBOX_TABLE, DEAD_LETTERS);
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + POSITIONS);
      statement.execute("DROP TABLE IF EXISTS " + IDS);
      statement.execute("DROP TABLE IF EXISTS boot_billed_orders");
    }
  }

  private static ConfigurableApplicationContext start() {
    Map<String, Object> properties = rabbit.outboxProperties();
    properties.put("outbox.outbox-table", OUTBOX_TABLE);
    properties.put("outbox.dead-letter-table", DEAD_LETTERS);
    properties.put("outbox.create-schema", "true");
    properties.put("outbox.inbox.source", "billing");
    properties.put("outbox.inbox.positions-table", POSITIONS);
    properties.put("outbox.inbox.received-ids-table", IDS);
    properties.put("outbox.inbox.create-schema", "true");
    properties.put("outbox.inbox.gap-policy", "fail");
    properties.put("spring.rabbitmq.host", "127.0.0.1");
    properties.put("billing.queue", BILLING_QUEUE);
    properties.put("spring.jmx.enabled", "true");
    properties.put("management.endpoints.jmx.exposure.include", "inbox");
    return new SpringApplicationBuilder(BillingApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(properties)
        .run();
  }

  @Test
  void aRabbitListenerBillsEachStepOnceInOrderAndRaisesOneInvoiceEventForEach() throws Exception {
    String type = "boot-billing-" + SUFFIX;
    List<String> orders = new ArrayList<>();
    try (ConfigurableApplicationContext context = start()) {
      BillingListener listener = context.getBean(BillingListener.class);
      BillingApplication.Outcomes outcomes = context.getBean(BillingApplication.Outcomes.class);
      for (int i = 0; i < ORDERS; i++) {
        String id = type + "-" + i;
        orders.add(id);
        listener.failOnce(id, 2);
      }
      ShopService shop = context.getBean(ShopService.class);
      for (String id : orders) {
        shop.place(id, type, STEPS);
      }

      int total = ORDERS * STEPS;
      int copied = republishCopies(total);
      assertThat(copied).as("a second copy of every order event").isEqualTo(total);

      BilledOrders billed = context.getBean(BilledOrders.class);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  outcomes.count("DUPLICATE") >= total
                      && orders.stream()
                          .allMatch(
                              id ->
                                  billed
                                      .findById(id)
                                      .map(BilledOrder::getInvoices)
                                      .orElse(0L)
                                      .equals((long) STEPS)));
      for (String id : orders) {
        BilledOrder order = billed.findById(id).orElseThrow();
        assertThat(order.getInvoices()).as("steps billed of %s", id).isEqualTo(STEPS);
        assertThat(order.getLastStep()).isEqualTo(STEPS - 1);
      }
      assertThat(listener.failuresLeft()).as("every injected failure happened").isEmpty();
      assertThat(count("SELECT count(*) FROM " + POSITIONS + " WHERE source = 'billing'"))
          .as("one position per order")
          .isEqualTo(ORDERS);
      assertThat(
              count(
                  "SELECT count(*) FROM " + OUTBOX_TABLE + " WHERE event_type = 'invoice.issued'"))
          .as("one invoice event per step: written with the effect, never with a rolled-back one")
          .isEqualTo(total);
      InboxEndpoint endpoint = context.getBean(InboxEndpoint.class);
      assertThat(endpoint.summary())
          .containsEntry("source", "billing")
          .containsEntry("gapPolicy", "FAIL")
          .containsEntry("gaps", List.of());
      Map<String, Object> positions = endpoint.view("positions", 100);
      assertThat(positions).containsEntry("limit", 100);
      assertThat((List<?>) positions.get("positions")).hasSize(ORDERS);
      assertThat(endpoint.view("elsewhere", null)).as("404").isNull();
      assertThat(outcomes.count("APPLIED"))
          .as("reported once per step: a handler that throws is not reported as applied")
          .isEqualTo(total);
    }
  }

  /** Takes the copies of the order events and publishes each again to the billing queue. */
  private static int republishCopies(int expected) throws Exception {
    int copied = 0;
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (copied < expected && System.nanoTime() < deadline) {
      GetResponse response = channel.basicGet(COPIES_QUEUE, true);
      if (response == null) {
        Thread.sleep(50);
        continue;
      }
      channel.basicPublish("", BILLING_QUEUE, response.getProps(), response.getBody());
      copied++;
    }
    return copied;
  }

  private static long count(String sql) throws Exception {
    try (java.sql.Connection db = DriverManager.getConnection(BootTables.URL, "postgres", "");
        Statement statement = db.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
