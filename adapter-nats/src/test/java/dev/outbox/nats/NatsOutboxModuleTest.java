package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.spi.EventPublisher;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NatsOutboxModuleTest {

  private static NatsPublisherOptions unreachable() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return NatsPublisherOptions.builder()
        .servers(List.of("nats://127.0.0.1:" + port))
        .reconnectWait(Duration.ofSeconds(30))
        .build();
  }

  @Test
  void bindsTheNatsPublisherAsSingletonWithoutConnectingWhileConfiguring() throws Exception {
    NatsPublisherOptions options = unreachable();
    long start = System.nanoTime();
    Injector injector = Guice.createInjector(new NatsOutboxModule(options));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(Duration.ofSeconds(15)); // well under the 30 s reconnect wait

    EventPublisher publisher = injector.getInstance(EventPublisher.class);
    try {
      assertThat(publisher).isInstanceOf(NatsEventPublisher.class);
      assertThat(((NatsEventPublisher) publisher).options()).isSameAs(options);
      assertThat(((NatsEventPublisher) publisher).isConnected()).isFalse();
      assertThat(injector.getInstance(EventPublisher.class)).isSameAs(publisher);
    } finally {
      publisher.close();
    }
  }

  @Test
  void secondBrokerModuleFailsNamingBothBindings() throws Exception {
    AbstractModule otherBroker =
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(EventPublisher.class).toInstance((messages, timeout) -> List.of());
          }
        };

    assertThatThrownBy(() -> Guice.createInjector(new NatsOutboxModule(unreachable()), otherBroker))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("EventPublisher was bound multiple times")
        .hasMessageContaining("NatsOutboxModule")
        .hasMessageContaining("NatsOutboxModuleTest");
  }
}
