package dev.outbox.rabbitmq;

import static dev.outbox.spi.OptionText.requireText;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client keeps its connection: the name it shows in the management UI, how long connecting
 * may take, the heartbeat, and the pause between attempts to recover a lost connection.
 */
record ClientSettings(
    String connectionName,
    Duration connectionTimeout,
    Duration heartbeat,
    Duration recoveryInterval) {

  static final ClientSettings DEFAULTS =
      new ClientSettings(
          RabbitMqPublisherOptions.DEFAULT_CONNECTION_NAME,
          RabbitMqPublisherOptions.DEFAULT_CONNECTION_TIMEOUT,
          RabbitMqPublisherOptions.DEFAULT_HEARTBEAT,
          RabbitMqPublisherOptions.DEFAULT_RECOVERY_INTERVAL);

  ClientSettings withConnectionName(String name) {
    return new ClientSettings(
        requireText("connectionName", name), connectionTimeout, heartbeat, recoveryInterval);
  }

  ClientSettings withConnectionTimeout(Duration timeout) {
    return new ClientSettings(
        connectionName,
        requireDuration("connectionTimeout", timeout, false),
        heartbeat,
        recoveryInterval);
  }

  ClientSettings withHeartbeat(Duration value) {
    return new ClientSettings(
        connectionName,
        connectionTimeout,
        requireDuration("heartbeat", value, true),
        recoveryInterval);
  }

  ClientSettings withRecoveryInterval(Duration interval) {
    return new ClientSettings(
        connectionName,
        connectionTimeout,
        heartbeat,
        requireDuration("recoveryInterval", interval, false));
  }

  private static Duration requireDuration(String field, Duration value, boolean zeroAllowed) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || (!zeroAllowed && value.isZero())) {
      throw new IllegalArgumentException(
          field + " must be " + (zeroAllowed ? ">= 0" : "> 0") + ", but was " + value);
    }
    return value;
  }
}
