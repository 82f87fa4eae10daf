package dev.outbox.nats;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.spi.EventPublisher;
import java.util.Objects;

/**
 * Binds {@link EventPublisher} to a {@link NatsEventPublisher} built from the options. Does no I/O
 * while Guice configures: the connection opens when the publisher is first injected (usually when
 * the {@code Outbox} is created), and closes with the outbox. Installing a second broker module
 * makes Guice fail, naming both bindings of {@code EventPublisher}.
 *
 * <pre>{@code
 * Guice.createInjector(new OutboxModule(outboxOptions), new NatsOutboxModule(natsOptions), ...);
 * }</pre>
 */
public final class NatsOutboxModule extends AbstractModule {

  private final NatsPublisherOptions options;

  /**
   * A module for these options.
   *
   * @param options the publisher options
   */
  public NatsOutboxModule(NatsPublisherOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  @Override
  protected void configure() {
    bind(NatsPublisherOptions.class).toInstance(options);
  }

  @Provides
  @Singleton
  EventPublisher eventPublisher(NatsPublisherOptions options) {
    return NatsEventPublisher.connect(options);
  }
}
