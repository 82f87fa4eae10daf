package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.internal.OutboxIntegrator;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.OrderLine;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.OutboxTable.Row;
import dev.outbox.jdbc.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.BootstrapServiceRegistry;
import org.hibernate.boot.registry.BootstrapServiceRegistryBuilder;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox plugs itself into both bootstraps with no code: persistence.xml with {@code
 * Persistence.createEntityManagerFactory}, and Hibernate's native {@code MetadataSources}.
 */
abstract class AbstractBootstrapIT {

  private static final AtomicLong IDS = new AtomicLong(1_000_000);

  private final TestDatabase database;

  AbstractBootstrapIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void serverIsUp() {
    database.assumeReachable();
  }

  @Test
  void persistenceXmlBootstrapPicksTheOutboxUpWithTextSettings() {
    DataSource dataSource = database.dataSource();
    OutboxTable.drop(dataSource, "xml_outbox", "xml_dead_letters");
    long id = IDS.getAndIncrement();
    EntityManagerFactory emf =
        Persistence.createEntityManagerFactory(
            "orders-xml", Map.of("hibernate.connection.datasource", dataSource));
    try {
      emf.runInTransaction(em -> em.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
    } finally {
      emf.close();
    }
    assertThat(new OutboxTable(dataSource, "xml_outbox").rows())
        .extracting(Row::aggregateId, Row::eventType)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(Long.toString(id), "order.placed"));
  }

  @Test
  void nativeBootstrapPicksTheOutboxUpAndRegisteringTwiceWritesOnce() {
    DataSource dataSource = database.dataSource();
    OutboxTable.drop(dataSource, "native_outbox", "native_dead_letters");
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable("native_outbox")
            .deadLetterTable("native_dead_letters")
            .createSchema(true)
            .build();
    BootstrapServiceRegistry bootstrap =
        new BootstrapServiceRegistryBuilder().applyIntegrator(new OutboxIntegrator()).build();
    StandardServiceRegistry registry =
        new StandardServiceRegistryBuilder(bootstrap)
            .applySetting("hibernate.connection.datasource", dataSource)
            .applySetting("hibernate.hbm2ddl.auto", "create-drop")
            .applySetting(OutboxSettings.OPTIONS, options)
            .build();
    long id = IDS.getAndIncrement();
    try (SessionFactory sessionFactory =
        new MetadataSources(registry)
            .addAnnotatedClass(PurchaseOrder.class)
            .addAnnotatedClass(OrderLine.class)
            .buildMetadata()
            .buildSessionFactory()) {
      sessionFactory.inTransaction(
          session -> {
            PurchaseOrder order = PurchaseOrder.place(id, BigDecimal.ONE);
            session.persist(order);
            order.cancel("twice registered, once written");
          });
    } finally {
      StandardServiceRegistryBuilder.destroy(registry);
    }
    assertThat(new OutboxTable(dataSource, "native_outbox").rows())
        .extracting(Row::eventType)
        .containsExactly("order.placed", "order.cancelled");
  }

  @Test
  void optionsSettingThatIsNotOutboxOptionsFailsNamingTheSetting() {
    assertThatThrownBy(
            () ->
                Emfs.create(
                        database.dataSource(),
                        Map.of(OutboxSettings.OPTIONS, "batchSize=10", Emfs.SCHEMA_ACTION, "none"))
                    .close())
        .hasStackTraceContaining(
            "Setting dev.outbox.options must hold an OutboxOptions instance, but held a"
                + " java.lang.String");
  }

  @Test
  void badTableNameInTextSettingFailsNamingTheField() {
    assertThatThrownBy(
            () ->
                Emfs.create(
                        database.dataSource(),
                        Map.of(
                            OutboxSettings.OUTBOX_TABLE,
                            "outbox; drop table users",
                            Emfs.SCHEMA_ACTION,
                            "none"))
                    .close())
        .hasStackTraceContaining("outboxTable must be a plain SQL identifier")
        .hasStackTraceContaining("\"outbox; drop table users\"");
  }

  @Test
  void cdcModeBuildsOnPostgreSqlOnlyAndNeedsNoPublisherThere() {
    DataSource dataSource = database.dataSource();
    OutboxTable.drop(dataSource, "cdc_boot_messages", "cdc_boot_dead_letters");
    OutboxOptions options =
        OutboxOptions.builder()
            .outboxTable("cdc_boot_messages")
            .deadLetterTable("cdc_boot_dead_letters")
            .createSchema(true)
            .deliveryMode(DeliveryMode.CDC)
            .retention(Duration.ZERO)
            .build();
    if (database != TestDatabase.POSTGRESQL) {
      assertThatThrownBy(() -> Emfs.create(dataSource, options).close())
          .hasStackTraceContaining("deliveryMode CDC is supported on PostgreSQL only")
          .hasStackTraceContaining("Use DeliveryMode.POLLING");
      return;
    }
    long id = IDS.getAndIncrement();
    try (SessionFactory emf = Emfs.create(dataSource, options);
        Outbox outbox = HibernateOutbox.create(emf)) {
      outbox.start();
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(id, BigDecimal.ONE)));
      OutboxTable table = new OutboxTable(dataSource, "cdc_boot_messages");
      assertThat(table.rows()).hasSize(1);
      assertThat(outbox.health().deliveryMode()).isEqualTo(DeliveryMode.CDC);
      assertThat(outbox.cleanUpOnce()).as("retention zero: written is old enough").isEqualTo(1);
      assertThat(table.rows()).isEmpty();
      assertThat(table.head("PurchaseOrder", Long.toString(id)).writeSeq())
          .as("the head stays, so that the aggregate's seq goes on")
          .isEqualTo(1);
    }
  }

  @Test
  void anOutboxWithoutAPublisherNeedsCdcMode() {
    DataSource dataSource = database.dataSource();
    try (SessionFactory emf =
        Emfs.create(dataSource, OutboxOptions.builder().createSchema(true).build())) {
      assertThatThrownBy(() -> HibernateOutbox.create(emf))
          .hasMessageContaining("An outbox without an EventPublisher needs deliveryMode CDC");
    }
  }
}
