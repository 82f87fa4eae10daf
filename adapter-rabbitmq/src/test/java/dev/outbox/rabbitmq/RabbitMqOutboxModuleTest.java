package dev.outbox.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.spi.EventPublisher;
import org.junit.jupiter.api.Test;

class RabbitMqOutboxModuleTest {

  /** Nothing listens there: creating the injector and the publisher must not connect. */
  private static final RabbitMqPublisherOptions NOWHERE =
      RabbitMqPublisherOptions.builder().host("127.0.0.1").port(1).build();

  @Test
  void bindsTheRabbitMqPublisherAsSingletonWithoutConnecting() {
    Injector injector = Guice.createInjector(new RabbitMqOutboxModule(NOWHERE));

    EventPublisher publisher = injector.getInstance(EventPublisher.class);
    assertThat(publisher).isInstanceOf(RabbitMqEventPublisher.class);
    assertThat(injector.getInstance(EventPublisher.class)).isSameAs(publisher);
    assertThat(((RabbitMqEventPublisher) publisher).options()).isSameAs(NOWHERE);
    publisher.close();
  }

  @Test
  void aSecondPublisherBindingFailsNamingBoth() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    new RabbitMqOutboxModule(NOWHERE),
                    binder ->
                        binder.bind(EventPublisher.class).toInstance((messages, timeout) -> null)))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("EventPublisher was bound multiple times")
        .hasMessageContaining("RabbitMqOutboxModule.eventPublisher")
        .hasMessageContaining("RabbitMqOutboxModuleTest");
  }
}
