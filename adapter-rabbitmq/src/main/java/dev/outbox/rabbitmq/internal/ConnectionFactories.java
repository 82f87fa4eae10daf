package dev.outbox.rabbitmq.internal;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ExceptionHandler;
import dev.outbox.rabbitmq.RabbitMqPublisherOptions;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;

/** Turns the options into a client {@link ConnectionFactory}. */
final class ConnectionFactories {

  private ConnectionFactories() {}

  static ConnectionFactory create(RabbitMqPublisherOptions options, ExceptionHandler handler) {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(options.host());
    factory.setPort(options.port());
    factory.setVirtualHost(options.virtualHost());
    factory.setUsername(options.username());
    factory.setPassword(options.password());
    if (options.tls()) {
      factory.useSslProtocol(sslContext(options));
      factory.enableHostnameVerification();
    }
    int connectMillis = (int) Math.min(Integer.MAX_VALUE, options.connectionTimeout().toMillis());
    factory.setConnectionTimeout(connectMillis);
    factory.setHandshakeTimeout(connectMillis);
    factory.setChannelRpcTimeout(connectMillis);
    factory.setShutdownTimeout(connectMillis);
    factory.setRequestedHeartbeat((int) Math.min(65_535, options.heartbeat().toSeconds()));
    factory.setAutomaticRecoveryEnabled(true);
    // The publisher declares no queue, binding or consumer; it declares its exchange again itself
    // (Channels), as the client would do it on the closed channel it was declared on.
    factory.setTopologyRecoveryEnabled(false);
    factory.setNetworkRecoveryInterval(options.recoveryInterval().toMillis());
    factory.setExceptionHandler(handler);
    return factory;
  }

  private static SSLContext sslContext(RabbitMqPublisherOptions options) {
    if (options.sslContext() != null) {
      return options.sslContext();
    }
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JVM has no default TLS context", e);
    }
  }
}
