package dev.outbox.servicebus;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.spi.EventPublisher;
import java.util.Objects;

/**
 * Binds {@link EventPublisher} to a {@link ServiceBusEventPublisher} built from its options. Use it
 * beside the outbox's own module; binding a second broker module fails with Guice's error naming
 * both bindings. Does no I/O: the publisher connects on its first publish.
 *
 * <pre>{@code
 * Guice.createInjector(
 *     new OutboxModule(outboxOptions),
 *     new ServiceBusOutboxModule(ServiceBusPublisherOptions.fromMap(System.getenv(), "OUTBOX_SERVICEBUS_")));
 * }</pre>
 */
public final class ServiceBusOutboxModule extends AbstractModule {

  private final ServiceBusPublisherOptions options;

  /**
   * Creates the module.
   *
   * @param options the publisher's options
   */
  public ServiceBusOutboxModule(ServiceBusPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  protected void configure() {
    bind(ServiceBusPublisherOptions.class).toInstance(options);
  }

  @Provides
  @Singleton
  EventPublisher eventPublisher(ServiceBusPublisherOptions publisherOptions) {
    return ServiceBusEventPublisher.create(publisherOptions);
  }
}
