package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class KafkaOutboxModuleTest {

  private static final KafkaPublisherOptions NOWHERE =
      KafkaPublisherOptions.builder()
          .bootstrapServers("127.0.0.1:1")
          .closeTimeout(Duration.ofMillis(200))
          .build();

  @Test
  void bindsTheKafkaPublisherBuiltFromTheOptionsAsASingleton() {
    Injector injector = Guice.createInjector(new KafkaOutboxModule(NOWHERE));

    EventPublisher publisher = injector.getInstance(EventPublisher.class);
    try {
      assertThat(publisher).isInstanceOf(KafkaEventPublisher.class);
      assertThat(((KafkaEventPublisher) publisher).options()).isSameAs(NOWHERE);
      assertThat(injector.getInstance(EventPublisher.class)).isSameAs(publisher);
    } finally {
      publisher.close();
    }
  }

  @Test
  void injectorAndPublisherAreCreatedWhileTheBrokerHostDoesNotResolve() {
    Injector injector =
        Guice.createInjector(
            new KafkaOutboxModule(
                KafkaPublisherOptions.builder().bootstrapServers("kafka.invalid:9092").build()));

    try (EventPublisher publisher = injector.getInstance(EventPublisher.class)) {
      assertThat(publisher).isInstanceOf(KafkaEventPublisher.class);
    }
  }

  @Test
  void aSecondBrokerModuleFailsNamingBothBindings() {
    AbstractModule other =
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(EventPublisher.class).toInstance((messages, timeout) -> List.<PublishResult>of());
          }
        };

    assertThatThrownBy(() -> Guice.createInjector(new KafkaOutboxModule(NOWHERE), other))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("EventPublisher was bound multiple times")
        .hasMessageContaining("KafkaOutboxModule.publisher")
        .hasMessageContaining("KafkaOutboxModuleTest$1.configure");
  }
}
