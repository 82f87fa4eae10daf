package dev.outbox.rabbitmq;

import static dev.outbox.spi.OptionText.requireText;

import dev.outbox.rabbitmq.internal.AmqpUri;
import javax.net.ssl.SSLContext;

/**
 * Where the publisher connects and as whom: the broker's host, port and virtual host, the user and
 * password, and TLS, each settable on its own or all at once from an AMQP URI. The password is
 * never part of {@link #toString()}.
 *
 * @param explicitPort the port set, or {@code null} for the default of the scheme ({@link #port()})
 */
record ConnectionSettings(
    String host,
    Integer explicitPort,
    String virtualHost,
    String username,
    String password,
    boolean tls,
    SSLContext sslContext) {

  static final ConnectionSettings DEFAULTS =
      new ConnectionSettings(
          RabbitMqPublisherOptions.DEFAULT_HOST,
          null,
          RabbitMqPublisherOptions.DEFAULT_VIRTUAL_HOST,
          RabbitMqPublisherOptions.DEFAULT_USERNAME,
          RabbitMqPublisherOptions.DEFAULT_USERNAME,
          false,
          null);

  /** TLS, host and port from the URI, and its virtual host, user and password where it has them. */
  ConnectionSettings withUri(String uri) {
    AmqpUri parsed = AmqpUri.parse(uri);
    ConnectionSettings result =
        new ConnectionSettings(
                host, null, virtualHost, username, password, parsed.tls(), sslContext)
            .withHost(parsed.host());
    if (parsed.port() != -1) {
      result = result.withPort(parsed.port());
    }
    if (parsed.virtualHost() != null) {
      result = result.withVirtualHost(parsed.virtualHost());
    }
    if (parsed.username() != null) {
      result = result.withUsername(parsed.username());
    }
    if (parsed.password() != null) {
      result = result.withPassword(parsed.password());
    }
    return result;
  }

  ConnectionSettings withHost(String value) {
    return new ConnectionSettings(
        requireText("host", value), explicitPort, virtualHost, username, password, tls, sslContext);
  }

  ConnectionSettings withPort(int port) {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be between 1 and 65535, but was " + port);
    }
    return new ConnectionSettings(host, port, virtualHost, username, password, tls, sslContext);
  }

  ConnectionSettings withVirtualHost(String value) {
    return new ConnectionSettings(
        host, explicitPort, requireText("virtualHost", value), username, password, tls, sslContext);
  }

  ConnectionSettings withUsername(String value) {
    return new ConnectionSettings(
        host, explicitPort, virtualHost, requireText("username", value), password, tls, sslContext);
  }

  ConnectionSettings withPassword(String value) {
    if (value == null) {
      throw new IllegalArgumentException("password must not be null");
    }
    return new ConnectionSettings(
        host, explicitPort, virtualHost, username, value, tls, sslContext);
  }

  ConnectionSettings withTls(boolean value) {
    return new ConnectionSettings(
        host, explicitPort, virtualHost, username, password, value, sslContext);
  }

  /** A context turns TLS on; {@code null} leaves TLS as it is. */
  ConnectionSettings withSslContext(SSLContext value) {
    return new ConnectionSettings(
        host, explicitPort, virtualHost, username, password, tls || value != null, value);
  }

  /** The port set, or the default of the scheme: 5671 with TLS, 5672 without. */
  int port() {
    return explicitPort != null
        ? explicitPort
        : tls ? RabbitMqPublisherOptions.DEFAULT_TLS_PORT : RabbitMqPublisherOptions.DEFAULT_PORT;
  }

  /** The address as a URI with the password masked: {@code amqp[s]://user:****@host:port}. */
  String maskedAddress() {
    return "amqp" + (tls ? "s" : "") + "://" + username + ":****@" + host + ':' + port();
  }

  @Override
  public String toString() {
    return "ConnectionSettings["
        + maskedAddress()
        + ", virtualHost="
        + virtualHost
        + ", sslContext="
        + (sslContext == null ? "default" : "set")
        + ']';
  }
}
