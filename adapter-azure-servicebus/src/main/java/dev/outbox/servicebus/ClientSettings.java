package dev.outbox.servicebus;

import com.azure.core.amqp.AmqpTransportType;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How the SDK client talks to Service Bus: how long one try may take, how often it retries within
 * one publish call, and the transport.
 */
record ClientSettings(Duration tryTimeout, int maxRetries, AmqpTransportType transportType) {

  static final ClientSettings DEFAULTS =
      new ClientSettings(
          ServiceBusPublisherOptions.DEFAULT_TRY_TIMEOUT,
          ServiceBusPublisherOptions.DEFAULT_MAX_RETRIES,
          ServiceBusPublisherOptions.DEFAULT_TRANSPORT_TYPE);

  ClientSettings withTryTimeout(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("tryTimeout must be > 0, but was " + timeout);
    }
    return new ClientSettings(timeout, maxRetries, transportType);
  }

  ClientSettings withMaxRetries(int retries) {
    if (retries < 0 || retries > 10) {
      throw new IllegalArgumentException("maxRetries must be 0..10, but was " + retries);
    }
    return new ClientSettings(tryTimeout, retries, transportType);
  }

  ClientSettings withTransportType(AmqpTransportType type) {
    return new ClientSettings(
        tryTimeout,
        maxRetries,
        Objects.requireNonNull(type, "transportType must not be null, but was null"));
  }

  /** The transport a {@code transport-type} key names. */
  static AmqpTransportType parseTransport(String value) {
    String normalized = value.toUpperCase(Locale.ROOT).replace("_", "").replace("-", "");
    if (normalized.equals("AMQP")) {
      return AmqpTransportType.AMQP;
    }
    if (normalized.equals("AMQPWEBSOCKETS")) {
      return AmqpTransportType.AMQP_WEB_SOCKETS;
    }
    throw new IllegalArgumentException(
        "transport-type must be AMQP or AMQP_WEB_SOCKETS, but was " + value);
  }
}
