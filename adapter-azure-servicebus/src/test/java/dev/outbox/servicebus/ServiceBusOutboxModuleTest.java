package dev.outbox.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServiceBusOutboxModuleTest {

  private static final ServiceBusPublisherOptions OPTIONS =
      ServiceBusPublisherOptions.builder()
          .connectionString(
              "Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;"
                  + "UseDevelopmentEmulator=true;")
          .entity("orders")
          .build();

  @Test
  void bindsOneServiceBusPublisherWithoutConnecting() {
    Injector injector = Guice.createInjector(new ServiceBusOutboxModule(OPTIONS));

    EventPublisher publisher = injector.getInstance(EventPublisher.class);
    assertThat(publisher).isInstanceOf(ServiceBusEventPublisher.class);
    assertThat(injector.getInstance(EventPublisher.class)).isSameAs(publisher);
    assertThat(injector.getInstance(ServiceBusPublisherOptions.class)).isSameAs(OPTIONS);
    publisher.close();
  }

  @Test
  void aSecondBrokerModuleFailsNamingBothBindings() {
    AbstractModule other =
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(EventPublisher.class).toInstance(new OtherPublisher());
          }
        };

    assertThatThrownBy(() -> Guice.createInjector(new ServiceBusOutboxModule(OPTIONS), other))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("EventPublisher was bound multiple times")
        .hasMessageContaining("ServiceBusOutboxModule.eventPublisher")
        .hasMessageContaining("ServiceBusOutboxModuleTest$1.configure");
  }

  private static final class OtherPublisher implements EventPublisher {
    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages, Duration timeout) {
      return List.of();
    }
  }
}
