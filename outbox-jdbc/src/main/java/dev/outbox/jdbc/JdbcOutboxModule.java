package dev.outbox.jdbc;

import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.OptionalBinder;
import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Wires the outbox on a {@link DataSource} with Guice, without Hibernate or any ORM: binds one
 * {@link JdbcOutbox} per injector (to send events in the application's JDBC transactions), the
 * processor as {@link Outbox}, its {@link DeadLetterService}, its {@link OutboxStore} and the
 * {@link OutboxOptions}. It does no I/O in {@code configure()}: the tables are checked when the
 * {@code JdbcOutbox} is first asked for, and nothing runs until {@link Outbox#start()}.
 *
 * <p>It needs two bindings from elsewhere: the application's {@link DataSource} (a pool), and an
 * {@link EventPublisher} from exactly one broker module ({@code KafkaOutboxModule}, {@code
 * RabbitMqOutboxModule}, {@code NatsOutboxModule}, {@code ServiceBusOutboxModule}). Without a
 * publisher, creating the injector fails with a message naming them; with two, Guice names both
 * bindings. In {@link DeliveryMode#CDC} no publisher is needed: Debezium delivers, and the bound
 * {@link Outbox} runs the cleanup by age. A {@link TransactionObserver} bound elsewhere (for
 * example on a transaction manager's commit hook) is used when there is one; {@link
 * JdbcOutbox#inTransaction} needs none.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new JdbcOutboxModule(OutboxOptions.builder().maxAttempts(5).build()),
 *     new RabbitMqOutboxModule(rabbitOptions),
 *     binder -> binder.bind(DataSource.class).toInstance(pool));
 * injector.getInstance(Outbox.class).start();
 * JdbcOutbox jdbcOutbox = injector.getInstance(JdbcOutbox.class);
 * jdbcOutbox.inTransaction(connection -> {
 *   insertPayment(connection, paymentId, amount);
 *   jdbcOutbox.send(connection, "Payment", paymentId, new PaymentRequested(paymentId, amount));
 *   return null;
 * });
 * }</pre>
 */
public final class JdbcOutboxModule extends AbstractModule {

  private final OutboxOptions options;

  /**
   * A module for these options.
   *
   * @param options the options of the tables, the writer and the processor
   */
  public JdbcOutboxModule(OutboxOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
  }

  @Override
  protected void configure() {
    bind(OutboxOptions.class).toInstance(options);
    OptionalBinder.newOptionalBinder(binder(), TransactionObserver.class);
    requestInjection(new PublisherBindingCheck(options.deliveryMode(), "JdbcOutboxModule"));
  }

  @Provides
  @Singleton
  JdbcOutbox jdbcOutbox(DataSource dataSource, Optional<TransactionObserver> observer) {
    JdbcOutbox.Builder builder = JdbcOutbox.builder(dataSource).options(options);
    observer.ifPresent(builder::transactionObserver);
    return builder.build();
  }

  @Provides
  @Singleton
  OutboxStore store(JdbcOutbox jdbcOutbox) {
    return jdbcOutbox.store();
  }

  /**
   * The publisher is looked up through the injector, not injected: a missing binding is then
   * reported by {@link PublisherBindingCheck}, which names the broker modules, instead of Guice's
   * generic message.
   */
  @Provides
  @Singleton
  Outbox outbox(JdbcOutbox jdbcOutbox, Injector injector) {
    if (options.deliveryMode() == DeliveryMode.CDC) {
      return jdbcOutbox.outbox();
    }
    return jdbcOutbox.outbox(injector.getInstance(EventPublisher.class));
  }

  @Provides
  @Singleton
  DeadLetterService deadLetters(Outbox outbox) {
    return outbox.deadLetters();
  }

  @Override
  public String toString() {
    return "JdbcOutboxModule[" + options + ']';
  }
}
