package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.DeadLetterQuery;
import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxMessage;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.testing.OutboxTable;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import dev.outbox.spi.PublishResult;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The Guice wiring of the outbox on a DataSource, on H2 in memory. */
class JdbcOutboxModuleTest {

  private static final String TABLE = "guice_jdbc_outbox";
  private static final String DEAD_LETTERS = "guice_jdbc_dead_letters";

  private static final OutboxOptions OPTIONS =
      OutboxOptions.builder()
          .outboxTable(TABLE)
          .deadLetterTable(DEAD_LETTERS)
          .createSchema(true)
          .pollInterval(Duration.ofMillis(100))
          .build();

  record Noted(String text) implements DomainEvent {}

  private final DataSource dataSource = TestDatabase.H2.dataSource();

  @BeforeEach
  @AfterEach
  void dropTables() {
    OutboxTable.drop(dataSource, TABLE, DEAD_LETTERS);
  }

  /** Records what it is asked to publish and publishes it. */
  static final class RecordingPublisher implements EventPublisher {
    final List<String> payloads = new CopyOnWriteArrayList<>();
    final AtomicInteger closed = new AtomicInteger();

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
      List<PublishResult> results = new ArrayList<>();
      for (OutboxMessage message : messages) {
        payloads.add(message.payload());
        results.add(PublishResult.published(message.id()));
      }
      return results;
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  static final class FirstBrokerModule extends AbstractModule {
    @Override
    protected void configure() {
      bind(EventPublisher.class).toInstance(new RecordingPublisher());
    }
  }

  static final class SecondBrokerModule extends AbstractModule {
    @Override
    protected void configure() {
      bind(EventPublisher.class).toInstance(new RecordingPublisher());
    }
  }

  private static AbstractModule dataSourceThatMustNotBeTouched() {
    return new AbstractModule() {
      @Override
      protected void configure() {
        bind(DataSource.class)
            .toProvider(
                () -> {
                  throw new AssertionError("creating the injector must do no I/O");
                });
      }
    };
  }

  @Test
  void withoutABrokerModuleTheInjectorFailsNamingTheAdapterModules() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    new JdbcOutboxModule(OPTIONS), dataSourceThatMustNotBeTouched()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("No EventPublisher is bound")
        .hasMessageContaining("next to JdbcOutboxModule")
        .hasMessageContaining("KafkaOutboxModule")
        .hasMessageContaining("RabbitMqOutboxModule");
  }

  @Test
  void withoutADataSourceTheInjectorFailsNamingIt() {
    assertThatThrownBy(
            () -> Guice.createInjector(new JdbcOutboxModule(OPTIONS), new FirstBrokerModule()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(DataSource.class.getName());
  }

  @Test
  void twoBrokerModulesFailNamingBoth() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    new JdbcOutboxModule(OPTIONS),
                    new FirstBrokerModule(),
                    new SecondBrokerModule(),
                    dataSourceThatMustNotBeTouched()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("FirstBrokerModule")
        .hasMessageContaining("SecondBrokerModule");
  }

  @Test
  void creatingTheInjectorTouchesNoDatabase() {
    Injector injector =
        Guice.createInjector(
            new JdbcOutboxModule(OPTIONS),
            new FirstBrokerModule(),
            dataSourceThatMustNotBeTouched());
    assertThat(injector.getInstance(OutboxOptions.class)).isSameAs(OPTIONS);
  }

  @Test
  void cdcModeNeedsNoPublisher() {
    OutboxOptions cdc = OPTIONS.toBuilder().deliveryMode(DeliveryMode.CDC).build();
    Injector injector =
        Guice.createInjector(new JdbcOutboxModule(cdc), dataSourceThatMustNotBeTouched());
    assertThat(injector.getInstance(OutboxOptions.class).deliveryMode())
        .isEqualTo(DeliveryMode.CDC);
  }

  @Test
  void wiredOutboxSendsInTheCallersTransactionDeliversAndClosesIdempotently() {
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector =
        Guice.createInjector(
            new JdbcOutboxModule(OPTIONS),
            binder -> binder.bind(EventPublisher.class).toInstance(publisher),
            binder -> binder.bind(DataSource.class).toInstance(dataSource));
    JdbcOutbox jdbcOutbox = injector.getInstance(JdbcOutbox.class);
    Outbox outbox = injector.getInstance(Outbox.class);
    assertThat(injector.getInstance(JdbcOutbox.class)).isSameAs(jdbcOutbox);
    assertThat(injector.getInstance(Outbox.class)).isSameAs(outbox);
    assertThat(injector.getInstance(OutboxStore.class)).isSameAs(jdbcOutbox.store());

    outbox.start();
    outbox.start();
    jdbcOutbox.inTransaction(
        connection -> {
          jdbcOutbox.send(connection, "Payment", "p-1", new Noted("requested"));
          return null;
        });
    await().atMost(Duration.ofSeconds(10)).until(() -> publisher.payloads.size() == 1);
    assertThat(publisher.payloads).containsExactly("{\"text\":\"requested\"}");
    assertThat(injector.getInstance(DeadLetterService.class).count(DeadLetterQuery.all())).isZero();

    outbox.close();
    outbox.close();
    assertThat(outbox.isRunning()).isFalse();
    assertThat(publisher.closed).hasValue(1);
  }

  @Test
  void aBoundTransactionObserverIsToldOfEachSendOutsideInTransaction() throws Exception {
    List<Runnable> afterCommit = new CopyOnWriteArrayList<>();
    TransactionObserver observer =
        (connection, action) -> {
          afterCommit.add(action);
          return true;
        };
    Injector injector =
        Guice.createInjector(
            new JdbcOutboxModule(OPTIONS),
            new FirstBrokerModule(),
            binder -> binder.bind(TransactionObserver.class).toInstance(observer),
            binder -> binder.bind(DataSource.class).toInstance(dataSource));
    JdbcOutbox jdbcOutbox = injector.getInstance(JdbcOutbox.class);
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      jdbcOutbox.send(connection, "Payment", "p-2", new Noted("observed"));
      connection.commit();
    }
    assertThat(afterCommit).hasSize(1);
    assertThat(new OutboxTable(dataSource, TABLE).rows()).hasSize(1);
  }
}
