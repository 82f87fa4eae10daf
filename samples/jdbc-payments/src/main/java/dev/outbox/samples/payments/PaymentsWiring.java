package dev.outbox.samples.payments;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.OutboxOptions;
import dev.outbox.RetryPolicy;
import dev.outbox.jdbc.JdbcOutboxModule;
import dev.outbox.rabbitmq.RabbitMqOutboxModule;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The wiring an application does: outbox options in code, {@link JdbcOutboxModule} on the
 * application's {@link DataSource}, and one broker module. The injector then gives the {@code
 * JdbcOutbox} (for the service), the {@code Outbox} (to start) and the {@code DeadLetterService}.
 */
public final class PaymentsWiring {

  private PaymentsWiring() {}

  /**
   * The outbox as the sample tunes it: its own tables, created at start; a short poll interval
   * (commits wake the processor anyway); quick retries for a demo; delivered rows deleted at the
   * first cleanup after they were delivered, which the demo runs itself at the end.
   *
   * @param tables the sample's tables
   * @return the options, to tune further
   */
  public static OutboxOptions.Builder outboxOptions(PaymentTables tables) {
    return tables
        .outboxOptions()
        .pollInterval(Duration.ofMillis(200))
        .batchSize(250)
        .maxAttempts(20)
        .retryPolicy(
            RetryPolicy.exponential(Duration.ofMillis(100), 2.0, Duration.ofSeconds(2))
                .withJitter(0.2))
        .publishTimeout(Duration.ofSeconds(10))
        .retention(Duration.ZERO)
        .cleanupInterval(Duration.ofHours(1))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  /**
   * The injector of the application.
   *
   * @param dataSource the application's pool
   * @param tables the sample's tables
   * @param outboxOptions the outbox's options
   * @param rabbitMq where the publisher sends
   * @return the injector; creating it does no I/O
   */
  public static Injector injector(
      DataSource dataSource,
      PaymentTables tables,
      OutboxOptions outboxOptions,
      RabbitMqPublisherOptions rabbitMq) {
    return Guice.createInjector(
        new JdbcOutboxModule(outboxOptions),
        new RabbitMqOutboxModule(rabbitMq),
        binder -> {
          binder.bind(DataSource.class).toInstance(dataSource);
          binder.bind(PaymentTables.class).toInstance(tables);
        });
  }
}
