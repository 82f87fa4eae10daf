package dev.outbox.rabbitmq;

import dev.outbox.OutboxMessage;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * How {@link RabbitMqEventPublisher} connects and where it sends. An immutable value: {@link
 * #builder()}, {@link #defaults()}, {@link #toBuilder()}, or read from {@link #fromProperties
 * Properties}/{@link #fromMap Map} with a prefix. Every setter checks its value at once and names
 * the field and the bad value. The password never appears in {@link #toString()}, in errors or in
 * logs, not even inside a URI. The options come in three groups, in this order below and in the
 * builder: the connection (where and as whom: host, port, virtual host, user, password, TLS), the
 * routing (exchange, routing key, app-id), and the client (connection name, timeouts, heartbeat,
 * recovery).
 *
 * <pre>{@code
 * RabbitMqPublisherOptions options = RabbitMqPublisherOptions.builder()
 *     .uri("amqps://orders:secret@rabbit.internal/prod")
 *     .exchange("orders.events")
 *     .routingKeyTemplate("{aggregateType}.{eventType}")
 *     .build();
 * }</pre>
 */
public final class RabbitMqPublisherOptions {

  /** Default of {@link #host()}. */
  public static final String DEFAULT_HOST = "localhost";

  /** Default of {@link #port()} without TLS; with TLS it is {@value #DEFAULT_TLS_PORT}. */
  public static final int DEFAULT_PORT = 5672;

  /** Default of {@link #port()} with TLS. */
  public static final int DEFAULT_TLS_PORT = 5671;

  /** Default of {@link #virtualHost()}. */
  public static final String DEFAULT_VIRTUAL_HOST = "/";

  /** Default of {@link #username()} and of the password: RabbitMQ's development account. */
  public static final String DEFAULT_USERNAME = "guest";

  /** Default of {@link #exchange()}. */
  public static final String DEFAULT_EXCHANGE = "outbox.events";

  /** Default of {@link #exchangeType()}. */
  public static final String DEFAULT_EXCHANGE_TYPE = "topic";

  /** Default of {@link #routingKey()}: the event type. */
  public static final String DEFAULT_ROUTING_KEY = "{eventType}";

  /** Default of {@link #connectionName()}. */
  public static final String DEFAULT_CONNECTION_NAME = "outbox-publisher";

  /** Default of {@link #connectionTimeout()}. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);

  /** Default of {@link #heartbeat()}. */
  public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(30);

  /** Default of {@link #recoveryInterval()}. */
  public static final Duration DEFAULT_RECOVERY_INTERVAL = Duration.ofSeconds(1);

  /**
   * The defaults, built on first use rather than with this class, so that the settings records may
   * read the constants above whichever of them is loaded first.
   */
  private static final class Defaults {
    static final RabbitMqPublisherOptions VALUE = new Builder().build();
  }

  // The URI first: the single keys given with it override its parts.
  private static final OptionsBinder<Builder> BINDER =
      OptionsBinder.<Builder>of("RabbitMQ publisher")
          .secret("uri", Builder::uri)
          .string("host", Builder::host)
          .integer("port", Builder::port)
          .string("virtual-host", Builder::virtualHost)
          .string("username", Builder::username)
          .secret("password", Builder::password)
          .bool("tls", Builder::tls)
          .string("exchange", Builder::exchange)
          .string("exchange-type", Builder::exchangeType)
          .bool("exchange-durable", Builder::exchangeDurable)
          .bool("declare-exchange", Builder::declareExchange)
          .string("routing-key", Builder::routingKeyTemplate)
          .string("app-id", (b, v) -> b.appId(v.isBlank() ? null : v))
          .string("connection-name", Builder::connectionName)
          .duration("connection-timeout", Builder::connectionTimeout)
          .duration("heartbeat", Builder::heartbeat)
          .duration("recovery-interval", Builder::recoveryInterval);

  private final ConnectionSettings connection;
  private final RoutingSettings routing;
  private final ClientSettings client;

  private RabbitMqPublisherOptions(Builder b) {
    connection = b.connection;
    routing = b.routing;
    client = b.client;
  }

  /**
   * @return a new builder holding the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @return the options with every default: guest on localhost:5672, exchange outbox.events
   */
  public static RabbitMqPublisherOptions defaults() {
    return Defaults.VALUE;
  }

  /**
   * @return a new builder holding these options, to derive changed ones
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Reads options from properties with the outbox's one key grammar ({@link OptionsBinder}): under
   * the prefix {@code outbox.rabbitmq}, {@code outbox.rabbitmq.uri}, {@code host}, {@code port},
   * {@code virtual-host}, {@code username}, {@code password}, {@code tls}, {@code exchange}, {@code
   * exchange-type}, {@code exchange-durable}, {@code declare-exchange}, {@code routing-key} (a
   * template), {@code app-id}, {@code connection-name}, {@code connection-timeout}, {@code
   * heartbeat} and {@code recovery-interval}; each also in environment form ({@code
   * OUTBOX_RABBITMQ_VIRTUAL_HOST}). Durations as {@code 500ms}, {@code 5s}, {@code 2m} or ISO-8601.
   * The URI is applied first, so that single keys given with it override its parts. Keys absent
   * keep the defaults; a key under the prefix that names no option is an error that lists them.
   *
   * @param properties e.g. {@code System.getProperties()}
   * @param prefix e.g. {@code outbox.rabbitmq}
   * @return the options
   * @throws IllegalArgumentException naming the key and the bad value (never a secret's)
   */
  public static RabbitMqPublisherOptions fromProperties(Properties properties, String prefix) {
    return BINDER.bind(properties, prefix, builder()).build();
  }

  /**
   * The same from a map, e.g. {@code fromMap(System.getenv(), "OUTBOX_RABBITMQ_")}.
   *
   * @param values the values
   * @param prefix e.g. {@code OUTBOX_RABBITMQ_}
   * @return the options
   * @throws IllegalArgumentException naming the key and the bad value (never a secret's)
   */
  public static RabbitMqPublisherOptions fromMap(Map<String, String> values, String prefix) {
    return BINDER.bind(values, prefix, builder()).build();
  }

  /**
   * The keys {@link #fromMap} reads under a prefix, in dotted form.
   *
   * @param prefix e.g. {@code outbox.rabbitmq}
   * @return the keys
   */
  public static List<String> keys(String prefix) {
    return BINDER.keys(prefix);
  }

  // Connection: where and as whom

  /**
   * @return default {@value #DEFAULT_HOST}
   */
  public String host() {
    return connection.host();
  }

  /**
   * @return default {@value #DEFAULT_PORT}, or {@value #DEFAULT_TLS_PORT} with TLS
   */
  public int port() {
    return connection.port();
  }

  /**
   * @return default {@value #DEFAULT_VIRTUAL_HOST}
   */
  public String virtualHost() {
    return connection.virtualHost();
  }

  /**
   * @return default {@value #DEFAULT_USERNAME}
   */
  public String username() {
    return connection.username();
  }

  /**
   * The password. Not part of {@link #toString()}.
   *
   * @return default {@value #DEFAULT_USERNAME}
   */
  public String password() {
    return connection.password();
  }

  /**
   * @return whether to connect with TLS; default {@code false}, {@code true} for amqps URIs
   */
  public boolean tls() {
    return connection.tls();
  }

  /**
   * The TLS context when {@link #tls()}.
   *
   * @return default {@code null}: the JVM's default context, which checks the broker's certificate
   *     against the default trust store; the host name is verified in either case
   */
  public SSLContext sslContext() {
    return connection.sslContext();
  }

  // Routing: exchange, routing key, app-id

  /**
   * @return where every message is published; default {@value #DEFAULT_EXCHANGE}
   */
  public String exchange() {
    return routing.exchange();
  }

  /**
   * @return the type when {@link #declareExchange()}; default {@value #DEFAULT_EXCHANGE_TYPE}
   */
  public String exchangeType() {
    return routing.exchangeType();
  }

  /**
   * @return whether a declared exchange survives a broker restart; default {@code true}
   */
  public boolean exchangeDurable() {
    return routing.exchangeDurable();
  }

  /**
   * @return whether to declare the exchange on connecting; default {@code false}
   */
  public boolean declareExchange() {
    return routing.declareExchange();
  }

  /**
   * @return the routing key of each message; default its event type
   */
  public Function<OutboxMessage, String> routingKey() {
    return routing.routingKey();
  }

  /**
   * @return the AMQP {@code app-id} of every message; default {@code null}, none
   */
  public String appId() {
    return routing.appId();
  }

  // Client: connection name, timeouts, heartbeat, recovery

  /**
   * @return the name the connection shows in the management UI; default "outbox-publisher"
   */
  public String connectionName() {
    return client.connectionName();
  }

  /**
   * @return the limit of TCP connect and AMQP handshake; default 10 s
   */
  public Duration connectionTimeout() {
    return client.connectionTimeout();
  }

  /**
   * @return the requested heartbeat; default 30 s, {@link Duration#ZERO} for none
   */
  public Duration heartbeat() {
    return client.heartbeat();
  }

  /**
   * @return the pause between attempts to recover a lost connection; default 1 s
   */
  public Duration recoveryInterval() {
    return client.recoveryInterval();
  }

  @Override
  public String toString() {
    return "RabbitMqPublisherOptions["
        + connection.maskedAddress()
        + ", virtualHost="
        + connection.virtualHost()
        + ", exchange="
        + routing.exchange()
        + (routing.declareExchange()
            ? " (declared "
                + routing.exchangeType()
                + (routing.exchangeDurable() ? ", durable)" : ")")
            : "")
        + ", routingKey="
        + routing.routingKey()
        + ", appId="
        + routing.appId()
        + ", connectionName="
        + client.connectionName()
        + ", connectionTimeout="
        + client.connectionTimeout()
        + ", heartbeat="
        + client.heartbeat()
        + ", recoveryInterval="
        + client.recoveryInterval()
        + ']';
  }

  /** Builds {@link RabbitMqPublisherOptions}; each setter checks its value at once. */
  public static final class Builder {

    private ConnectionSettings connection = ConnectionSettings.DEFAULTS;
    private RoutingSettings routing = RoutingSettings.DEFAULTS;
    private ClientSettings client = ClientSettings.DEFAULTS;

    private Builder() {}

    private Builder(RabbitMqPublisherOptions o) {
      connection = o.connection;
      routing = o.routing;
      client = o.client;
    }

    // Connection: where and as whom

    /**
     * Connects where an {@code amqp://} or {@code amqps://} URI says: it sets TLS, host and port,
     * and the virtual host, user and password it contains. The URI itself is not kept.
     *
     * @param uri {@code amqp[s]://[user[:password]@]host[:port][/vhost]}
     * @return this builder
     */
    public Builder uri(String uri) {
      connection = connection.withUri(uri);
      return this;
    }

    /**
     * Sets the host.
     *
     * @param host the broker's host name or address
     * @return this builder
     */
    public Builder host(String host) {
      connection = connection.withHost(host);
      return this;
    }

    /**
     * Sets the port.
     *
     * @param port 1 to 65535
     * @return this builder
     */
    public Builder port(int port) {
      connection = connection.withPort(port);
      return this;
    }

    /**
     * Sets the virtual host.
     *
     * @param virtualHost the virtual host, e.g. {@code /}
     * @return this builder
     */
    public Builder virtualHost(String virtualHost) {
      connection = connection.withVirtualHost(virtualHost);
      return this;
    }

    /**
     * Sets the username.
     *
     * @param username the user
     * @return this builder
     */
    public Builder username(String username) {
      connection = connection.withUsername(username);
      return this;
    }

    /**
     * Sets the password.
     *
     * @param password the password; never printed
     * @return this builder
     */
    public Builder password(String password) {
      connection = connection.withPassword(password);
      return this;
    }

    /**
     * Turns TLS on or off.
     *
     * @param tls whether to connect with TLS
     * @return this builder
     */
    public Builder tls(boolean tls) {
      connection = connection.withTls(tls);
      return this;
    }

    /**
     * Sets the TLS context.
     *
     * @param sslContext the TLS context (turns TLS on); null for the JVM's
     * @return this builder
     */
    public Builder sslContext(SSLContext sslContext) {
      connection = connection.withSslContext(sslContext);
      return this;
    }

    // Routing: exchange, routing key, app-id

    /**
     * Sets the exchange.
     *
     * @param exchange the exchange every message goes to; "" is the default exchange
     * @return this builder
     */
    public Builder exchange(String exchange) {
      routing = routing.withExchange(exchange);
      return this;
    }

    /**
     * Sets the exchange type.
     *
     * @param type direct, fanout, topic, headers or a plugin's type
     * @return this builder
     */
    public Builder exchangeType(String type) {
      routing = routing.withExchangeType(type);
      return this;
    }

    /**
     * Sets whether a declared exchange is durable.
     *
     * @param durable whether a declared exchange survives restarts
     * @return this builder
     */
    public Builder exchangeDurable(boolean durable) {
      routing = routing.withExchangeDurable(durable);
      return this;
    }

    /**
     * Sets whether to declare the exchange.
     *
     * @param declare whether to declare the exchange when connecting
     * @return this builder
     */
    public Builder declareExchange(boolean declare) {
      routing = routing.withDeclareExchange(declare);
      return this;
    }

    /**
     * The routing key of each message, computed by a function.
     *
     * @param routingKey from the message to its routing key (at most 255 bytes)
     * @return this builder
     */
    public Builder routingKey(Function<OutboxMessage, String> routingKey) {
      routing = routing.withRoutingKey(routingKey);
      return this;
    }

    /**
     * The routing key as a template with {@code {eventType}}, {@code {aggregateType}} and {@code
     * {aggregateId}}, e.g. {@code "{aggregateType}.{eventType}"}.
     *
     * @param template the template
     * @return this builder
     */
    public Builder routingKeyTemplate(String template) {
      routing = routing.withRoutingKeyTemplate(template);
      return this;
    }

    /**
     * Sets the AMQP app-id.
     *
     * @param appId the AMQP app-id of every message, null for none
     * @return this builder
     */
    public Builder appId(String appId) {
      routing = routing.withAppId(appId);
      return this;
    }

    // Client: connection name, timeouts, heartbeat, recovery

    /**
     * Sets the connection name.
     *
     * @param name the client-provided connection name
     * @return this builder
     */
    public Builder connectionName(String name) {
      client = client.withConnectionName(name);
      return this;
    }

    /**
     * Sets the connection timeout.
     *
     * @param timeout the limit of connect and handshake, &gt; 0
     * @return this builder
     */
    public Builder connectionTimeout(Duration timeout) {
      client = client.withConnectionTimeout(timeout);
      return this;
    }

    /**
     * Sets the heartbeat.
     *
     * @param heartbeat the requested heartbeat, 0 for none
     * @return this builder
     */
    public Builder heartbeat(Duration heartbeat) {
      client = client.withHeartbeat(heartbeat);
      return this;
    }

    /**
     * Sets the recovery interval.
     *
     * @param interval the pause between recovery attempts, &gt; 0
     * @return this builder
     */
    public Builder recoveryInterval(Duration interval) {
      client = client.withRecoveryInterval(interval);
      return this;
    }

    /**
     * @return the options
     */
    public RabbitMqPublisherOptions build() {
      return new RabbitMqPublisherOptions(this);
    }
  }
}
