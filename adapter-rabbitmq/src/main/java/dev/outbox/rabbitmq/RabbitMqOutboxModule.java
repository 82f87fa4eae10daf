package dev.outbox.rabbitmq;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.spi.EventPublisher;
import java.util.Objects;

/**
 * Binds {@link EventPublisher} to a {@link RabbitMqEventPublisher}, next to the outbox's {@code
 * OutboxModule}. Does no I/O in {@code configure()}: the publisher connects on its first batch.
 * Installing a second broker module makes Guice fail, naming both {@code EventPublisher} bindings.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new OutboxModule(outboxOptions),
 *     new RabbitMqOutboxModule(RabbitMqPublisherOptions.fromProperties(props, "outbox.rabbitmq")),
 *     binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
 * }</pre>
 */
public final class RabbitMqOutboxModule extends AbstractModule {

  private final RabbitMqPublisherOptions options;

  /**
   * A module for these options.
   *
   * @param options where and how to publish
   */
  public RabbitMqOutboxModule(RabbitMqPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
  }

  @Override
  protected void configure() {
    bind(RabbitMqPublisherOptions.class).toInstance(options);
  }

  @Provides
  @Singleton
  EventPublisher eventPublisher() {
    return new RabbitMqEventPublisher(options);
  }

  @Override
  public String toString() {
    return "RabbitMqOutboxModule[" + options + ']';
  }
}
