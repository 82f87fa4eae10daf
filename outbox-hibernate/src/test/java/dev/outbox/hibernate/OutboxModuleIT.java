package dev.outbox.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.DeadLetterQuery;
import dev.outbox.DeadLetterService;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.hibernate.testing.Emfs;
import dev.outbox.hibernate.testing.PurchaseOrder;
import dev.outbox.hibernate.testing.RecordingPublisher;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.EventPublisher;
import jakarta.persistence.EntityManagerFactory;
import java.math.BigDecimal;
import java.time.Duration;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** The Guice wiring, on H2: the module is database-agnostic. */
class OutboxModuleIT {

  private static final OutboxOptions OPTIONS =
      OutboxOptions.builder()
          .outboxTable("guice_outbox")
          .deadLetterTable("guice_dead_letters")
          .createSchema(true)
          .pollInterval(Duration.ofMillis(100))
          .build();

  static final class FirstBrokerModule extends AbstractModule {
    @Override
    protected void configure() {
      bind(EventPublisher.class).toInstance(new RecordingPublisher(0));
    }
  }

  static final class SecondBrokerModule extends AbstractModule {
    @Override
    protected void configure() {
      bind(EventPublisher.class).toInstance(new RecordingPublisher(0));
    }
  }

  @Test
  void withoutABrokerModuleTheInjectorFailsNamingTheAdapterModules() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    new OutboxModule(OPTIONS),
                    binder ->
                        binder
                            .bind(EntityManagerFactory.class)
                            .toProvider(
                                () -> {
                                  throw new AssertionError("no I/O");
                                })))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("No EventPublisher is bound")
        .hasMessageContaining("KafkaOutboxModule")
        .hasMessageContaining("RabbitMqOutboxModule");
  }

  @Test
  void twoBrokerModulesFailNamingBoth() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    new OutboxModule(OPTIONS), new FirstBrokerModule(), new SecondBrokerModule()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("FirstBrokerModule")
        .hasMessageContaining("SecondBrokerModule");
  }

  @Test
  void creatingTheInjectorTouchesNoDatabase() {
    Injector injector =
        Guice.createInjector(
            new OutboxModule(OPTIONS),
            new FirstBrokerModule(),
            binder ->
                binder
                    .bind(EntityManagerFactory.class)
                    .toProvider(
                        () -> {
                          throw new AssertionError("configure() must do no I/O");
                        }));
    assertThat(injector.getInstance(OutboxOptions.class)).isSameAs(OPTIONS);
  }

  @Test
  void wiredOutboxDeliversCommittedEventsAndClosesIdempotently() {
    TestDatabase.H2.assumeReachable();
    OutboxTable.drop(TestDatabase.H2.dataSource(), "guice_outbox", "guice_dead_letters");
    OutboxModule module = new OutboxModule(OPTIONS);
    RecordingPublisher publisher = new RecordingPublisher(0);
    try (SessionFactory emf =
        Emfs.create(TestDatabase.H2.dataSource(), module.persistenceProperties())) {
      Injector injector =
          Guice.createInjector(
              module,
              binder -> binder.bind(EventPublisher.class).toInstance(publisher),
              binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
      Outbox outbox = injector.getInstance(Outbox.class);
      assertThat(injector.getInstance(Outbox.class)).isSameAs(outbox);
      outbox.start();
      outbox.start();
      emf.inTransaction(session -> session.persist(PurchaseOrder.place(77, BigDecimal.TEN)));
      await().atMost(Duration.ofSeconds(10)).until(() -> publisher.deliveredCount() == 1);
      assertThat(injector.getInstance(DeadLetterService.class).count(DeadLetterQuery.all()))
          .isZero();
      outbox.close();
      outbox.close();
      assertThat(outbox.isRunning()).isFalse();
      assertThat(publisher.closeCount()).isEqualTo(1);
    }
  }
}
