package dev.outbox.kafka;

import static dev.outbox.spi.OptionText.requireText;

import java.time.Duration;

/**
 * The producer client the adapter sets up from its own options: the brokers it bootstraps from, its
 * {@code client.id}, how long a send waits for a topic's metadata, and how long closing waits for
 * records in flight.
 */
record ClientSettings(
    String bootstrapServers, String clientId, Duration metadataTimeout, Duration closeTimeout) {

  static final ClientSettings DEFAULTS =
      new ClientSettings(
          KafkaPublisherOptions.DEFAULT_BOOTSTRAP_SERVERS,
          KafkaPublisherOptions.DEFAULT_CLIENT_ID,
          KafkaPublisherOptions.DEFAULT_METADATA_TIMEOUT,
          KafkaPublisherOptions.DEFAULT_CLOSE_TIMEOUT);

  /** Keeps the servers trimmed. */
  ClientSettings withBootstrapServers(String servers) {
    return new ClientSettings(
        requireText("bootstrapServers", servers).trim(), clientId, metadataTimeout, closeTimeout);
  }

  ClientSettings withClientId(String id) {
    return new ClientSettings(
        bootstrapServers, requireText("clientId", id), metadataTimeout, closeTimeout);
  }

  ClientSettings withMetadataTimeout(Duration timeout) {
    return new ClientSettings(
        bootstrapServers, clientId, checkDuration("metadataTimeout", timeout), closeTimeout);
  }

  ClientSettings withCloseTimeout(Duration timeout) {
    return new ClientSettings(
        bootstrapServers, clientId, metadataTimeout, checkDuration("closeTimeout", timeout));
  }

  private static Duration checkDuration(String field, Duration value) {
    if (value == null
        || value.isNegative()
        || value.toMillis() < 1
        || value.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException(
          field + " must be between 1 ms and 10 minutes, but was " + value);
    }
    return value;
  }
}
