package dev.outbox.kafka;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.spi.EventPublisher;
import java.util.Objects;

/**
 * Binds {@link EventPublisher} to a {@link KafkaEventPublisher} built from the options. It does no
 * I/O in {@code configure()}: the producer is created when the publisher is first injected, and
 * closed when the {@code Outbox} closes. Installing a second broker module next to it makes Guice
 * fail and name both bindings.
 *
 * <pre>{@code
 * Guice.createInjector(
 *     new OutboxModule(outboxOptions),
 *     new KafkaOutboxModule(KafkaPublisherOptions.builder().bootstrapServers("kafka:9092").build()),
 *     binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
 * }</pre>
 */
public final class KafkaOutboxModule extends AbstractModule {

  private final KafkaPublisherOptions options;

  /**
   * A module for these options.
   *
   * @param options where to connect and how to route
   */
  public KafkaOutboxModule(KafkaPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
  }

  @Override
  protected void configure() {
    bind(KafkaPublisherOptions.class).toInstance(options);
  }

  @Provides
  @Singleton
  EventPublisher publisher() {
    return new KafkaEventPublisher(options);
  }

  @Override
  public String toString() {
    return "KafkaOutboxModule[" + options + ']';
  }
}
