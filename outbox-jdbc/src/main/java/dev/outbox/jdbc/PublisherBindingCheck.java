package dev.outbox.jdbc;

import com.google.inject.Inject;
import com.google.inject.Injector;
import com.google.inject.Key;
import dev.outbox.DeliveryMode;
import dev.outbox.OutboxException;
import dev.outbox.spi.EventPublisher;

/**
 * Fails the creation of a Guice injector when the outbox needs a publisher and no broker module
 * bound one, with a message naming the broker modules instead of Guice's generic one. Installed by
 * {@link JdbcOutboxModule} and by {@code outbox-hibernate}'s {@code OutboxModule} through {@code
 * requestInjection}; needs Guice on the classpath.
 */
public final class PublisherBindingCheck {

  private final DeliveryMode mode;
  private final String module;

  /**
   * A check for an outbox module.
   *
   * @param mode the outbox's delivery mode: {@link DeliveryMode#CDC} needs no publisher
   * @param module the simple name of the module that installs it, for the message
   */
  public PublisherBindingCheck(DeliveryMode mode, String module) {
    this.mode = mode;
    this.module = module;
  }

  /**
   * Runs the check once the injector exists.
   *
   * @param injector the injector being created
   * @throws OutboxException when no {@link EventPublisher} is bound in polling mode
   */
  @Inject
  public void check(Injector injector) {
    if (mode == DeliveryMode.POLLING
        && injector.getExistingBinding(Key.get(EventPublisher.class)) == null) {
      throw new OutboxException(
          "No EventPublisher is bound: install exactly one broker module next to "
              + module
              + " (KafkaOutboxModule, RabbitMqOutboxModule, NatsOutboxModule or"
              + " ServiceBusOutboxModule), or bind your own EventPublisher; in deliveryMode CDC"
              + " none is needed.");
    }
  }
}
