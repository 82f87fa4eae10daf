package dev.outbox.nats;

import static dev.outbox.spi.OptionText.requireText;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How the client behaves on its connection: the name the server shows, how long one connection
 * attempt may take, the pause between reconnect attempts, and a hook that adjusts the jnats options
 * last.
 */
record ClientSettings(
    String connectionName,
    Duration connectionTimeout,
    Duration reconnectWait,
    Consumer<io.nats.client.Options.Builder> customizer) {

  static final ClientSettings DEFAULTS =
      new ClientSettings(
          NatsPublisherOptions.DEFAULT_CONNECTION_NAME,
          NatsPublisherOptions.DEFAULT_CONNECTION_TIMEOUT,
          NatsPublisherOptions.DEFAULT_RECONNECT_WAIT,
          null);

  ClientSettings withConnectionName(String name) {
    return new ClientSettings(
        requireText("connectionName", name), connectionTimeout, reconnectWait, customizer);
  }

  ClientSettings withConnectionTimeout(Duration timeout) {
    return new ClientSettings(
        connectionName, positive("connectionTimeout", timeout), reconnectWait, customizer);
  }

  ClientSettings withReconnectWait(Duration wait) {
    return new ClientSettings(
        connectionName, connectionTimeout, positive("reconnectWait", wait), customizer);
  }

  ClientSettings withCustomizer(Consumer<io.nats.client.Options.Builder> hook) {
    return new ClientSettings(connectionName, connectionTimeout, reconnectWait, hook);
  }

  private static Duration positive(String field, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + value);
    }
    return value;
  }
}
