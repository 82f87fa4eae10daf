package dev.outbox.hibernate;

import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.DeadLetterService;
import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.PublisherBindingCheck;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.OutboxStore;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import java.util.Objects;

/**
 * Wires the outbox with Guice: the engine, the Hibernate store and the after-commit wake-up, bound
 * as {@link Outbox} and {@link DeadLetterService}. It does no I/O in {@code configure()}; nothing
 * runs until {@link Outbox#start()}.
 *
 * <p>It needs two bindings from elsewhere: an {@link EntityManagerFactory} built with the same
 * options ({@link #persistenceProperties()}), and an {@link EventPublisher} from exactly one broker
 * module ({@code KafkaOutboxModule}, {@code RabbitMqOutboxModule}, {@code NatsOutboxModule}, {@code
 * ServiceBusOutboxModule}). Without a publisher, creating the injector fails with a message naming
 * them; with two, Guice names both bindings. In {@link DeliveryMode#CDC} no publisher is needed:
 * Debezium delivers, and the bound {@link Outbox} runs the cleanup by age.
 *
 * <pre>{@code
 * OutboxModule outbox = new OutboxModule(options);
 * EntityManagerFactory emf =
 *     Persistence.createEntityManagerFactory("orders", outbox.persistenceProperties());
 * Injector injector = Guice.createInjector(outbox, new KafkaOutboxModule(kafkaOptions),
 *     binder -> binder.bind(EntityManagerFactory.class).toInstance(emf));
 * injector.getInstance(Outbox.class).start();
 * }</pre>
 */
public final class OutboxModule extends AbstractModule {

  private final OutboxOptions options;

  /**
   * A module for these options.
   *
   * @param options the options of the engine and of the persistence unit
   */
  public OutboxModule(OutboxOptions options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
  }

  /**
   * The settings that hand the same options to the persistence unit.
   *
   * @return {@code {dev.outbox.options: options}}, to pass to {@code
   *     Persistence.createEntityManagerFactory}
   */
  public Map<String, Object> persistenceProperties() {
    return Map.of(OutboxSettings.OPTIONS, options);
  }

  @Override
  protected void configure() {
    bind(OutboxOptions.class).toInstance(options);
    requestInjection(new PublisherBindingCheck(options.deliveryMode(), "OutboxModule"));
  }

  @Provides
  @Singleton
  OutboxStore store(EntityManagerFactory emf) {
    return HibernateOutbox.store(emf);
  }

  /**
   * The publisher is looked up through the injector, not injected: a missing binding is then
   * reported by {@link PublisherBindingCheck}, which names the broker modules, instead of Guice's
   * generic message.
   */
  @Provides
  @Singleton
  Outbox outbox(EntityManagerFactory emf, Injector injector) {
    if (options.deliveryMode() == DeliveryMode.CDC) {
      return HibernateOutbox.create(emf);
    }
    return HibernateOutbox.create(emf, injector.getInstance(EventPublisher.class), options);
  }

  @Provides
  @Singleton
  DeadLetterService deadLetters(Outbox outbox) {
    return outbox.deadLetters();
  }

  @Override
  public String toString() {
    return "OutboxModule[" + options + ']';
  }
}
