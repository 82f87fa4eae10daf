package dev.outbox.rabbitmq;

import dev.outbox.OutboxMessage;
import dev.outbox.rabbitmq.internal.AmqpUri;
import dev.outbox.rabbitmq.internal.RoutingKeyTemplate;
import dev.outbox.spi.OptionsBinder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * How {@link RabbitMqEventPublisher} connects and where it sends. An immutable value: {@link
 * #builder()}, {@link #defaults()}, {@link #toBuilder()}, or read from {@link #fromProperties
 * Properties}/{@link #fromMap Map} with a prefix. Every setter checks its value at once and names
 * the field and the bad value. The password never appears in {@link #toString()}, in errors or in
 * logs, not even inside a URI.
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
  public static final Duration DEFAULT_RECOVERY_INTERVAL = Duration.ofSeconds(5);

  private static final RabbitMqPublisherOptions DEFAULTS = new Builder().build();

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

  private final String host;
  private final Integer port;
  private final String virtualHost;
  private final String username;
  private final String password;
  private final boolean tls;
  private final SSLContext sslContext;
  private final String exchange;
  private final String exchangeType;
  private final boolean exchangeDurable;
  private final boolean declareExchange;
  private final Function<OutboxMessage, String> routingKey;
  private final String appId;
  private final String connectionName;
  private final Duration connectionTimeout;
  private final Duration heartbeat;
  private final Duration recoveryInterval;

  private RabbitMqPublisherOptions(Builder b) {
    host = b.host;
    port = b.port;
    virtualHost = b.virtualHost;
    username = b.username;
    password = b.password;
    tls = b.tls;
    sslContext = b.sslContext;
    exchange = b.exchange;
    exchangeType = b.exchangeType;
    exchangeDurable = b.exchangeDurable;
    declareExchange = b.declareExchange;
    routingKey = b.routingKey;
    appId = b.appId;
    connectionName = b.connectionName;
    connectionTimeout = b.connectionTimeout;
    heartbeat = b.heartbeat;
    recoveryInterval = b.recoveryInterval;
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
    return DEFAULTS;
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

  /**
   * @return default {@value #DEFAULT_HOST}
   */
  public String host() {
    return host;
  }

  /**
   * @return default {@value #DEFAULT_PORT}, or {@value #DEFAULT_TLS_PORT} with TLS
   */
  public int port() {
    return port != null ? port : tls ? DEFAULT_TLS_PORT : DEFAULT_PORT;
  }

  /**
   * @return default {@value #DEFAULT_VIRTUAL_HOST}
   */
  public String virtualHost() {
    return virtualHost;
  }

  /**
   * @return default {@value #DEFAULT_USERNAME}
   */
  public String username() {
    return username;
  }

  /**
   * The password. Not part of {@link #toString()}.
   *
   * @return default {@value #DEFAULT_USERNAME}
   */
  public String password() {
    return password;
  }

  /**
   * @return whether to connect with TLS; default {@code false}, {@code true} for amqps URIs
   */
  public boolean tls() {
    return tls;
  }

  /**
   * The TLS context when {@link #tls()}.
   *
   * @return default {@code null}: the JVM's default context, which checks the broker's certificate
   *     against the default trust store; the host name is verified in either case
   */
  public SSLContext sslContext() {
    return sslContext;
  }

  /**
   * @return where every message is published; default {@value #DEFAULT_EXCHANGE}
   */
  public String exchange() {
    return exchange;
  }

  /**
   * @return the type when {@link #declareExchange()}; default {@value #DEFAULT_EXCHANGE_TYPE}
   */
  public String exchangeType() {
    return exchangeType;
  }

  /**
   * @return whether a declared exchange survives a broker restart; default {@code true}
   */
  public boolean exchangeDurable() {
    return exchangeDurable;
  }

  /**
   * @return whether to declare the exchange on connecting; default {@code false}
   */
  public boolean declareExchange() {
    return declareExchange;
  }

  /**
   * @return the routing key of each message; default its event type
   */
  public Function<OutboxMessage, String> routingKey() {
    return routingKey;
  }

  /**
   * @return the AMQP {@code app-id} of every message; default {@code null}, none
   */
  public String appId() {
    return appId;
  }

  /**
   * @return the name the connection shows in the management UI; default "outbox-publisher"
   */
  public String connectionName() {
    return connectionName;
  }

  /**
   * @return the limit of TCP connect and AMQP handshake; default 10 s
   */
  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /**
   * @return the requested heartbeat; default 30 s, {@link Duration#ZERO} for none
   */
  public Duration heartbeat() {
    return heartbeat;
  }

  /**
   * @return the pause between attempts to recover a lost connection; default 5 s
   */
  public Duration recoveryInterval() {
    return recoveryInterval;
  }

  @Override
  public String toString() {
    return "RabbitMqPublisherOptions[amqp"
        + (tls ? "s" : "")
        + "://"
        + username
        + ":****@"
        + host
        + ':'
        + port()
        + ", virtualHost="
        + virtualHost
        + ", exchange="
        + exchange
        + (declareExchange
            ? " (declared " + exchangeType + (exchangeDurable ? ", durable)" : ")")
            : "")
        + ", routingKey="
        + routingKey
        + ", appId="
        + appId
        + ", connectionName="
        + connectionName
        + ", connectionTimeout="
        + connectionTimeout
        + ", heartbeat="
        + heartbeat
        + ", recoveryInterval="
        + recoveryInterval
        + ']';
  }

  /** Builds {@link RabbitMqPublisherOptions}; each setter checks its value at once. */
  public static final class Builder {

    private String host = DEFAULT_HOST;
    private Integer port;
    private String virtualHost = DEFAULT_VIRTUAL_HOST;
    private String username = DEFAULT_USERNAME;
    private String password = DEFAULT_USERNAME;
    private boolean tls;
    private SSLContext sslContext;
    private String exchange = DEFAULT_EXCHANGE;
    private String exchangeType = DEFAULT_EXCHANGE_TYPE;
    private boolean exchangeDurable = true;
    private boolean declareExchange;
    private Function<OutboxMessage, String> routingKey = RoutingKeyTemplate.of(DEFAULT_ROUTING_KEY);
    private String appId;
    private String connectionName = DEFAULT_CONNECTION_NAME;
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration heartbeat = DEFAULT_HEARTBEAT;
    private Duration recoveryInterval = DEFAULT_RECOVERY_INTERVAL;

    private Builder() {}

    private Builder(RabbitMqPublisherOptions o) {
      host = o.host;
      port = o.port;
      virtualHost = o.virtualHost;
      username = o.username;
      password = o.password;
      tls = o.tls;
      sslContext = o.sslContext;
      exchange = o.exchange;
      exchangeType = o.exchangeType;
      exchangeDurable = o.exchangeDurable;
      declareExchange = o.declareExchange;
      routingKey = o.routingKey;
      appId = o.appId;
      connectionName = o.connectionName;
      connectionTimeout = o.connectionTimeout;
      heartbeat = o.heartbeat;
      recoveryInterval = o.recoveryInterval;
    }

    /**
     * Connects where an {@code amqp://} or {@code amqps://} URI says: it sets TLS, host and port,
     * and the virtual host, user and password it contains. The URI itself is not kept.
     *
     * @param uri {@code amqp[s]://[user[:password]@]host[:port][/vhost]}
     * @return this builder
     */
    public Builder uri(String uri) {
      AmqpUri parsed = AmqpUri.parse(uri);
      tls = parsed.tls();
      host(parsed.host());
      port = null;
      if (parsed.port() != -1) {
        port(parsed.port());
      }
      if (parsed.virtualHost() != null) {
        virtualHost(parsed.virtualHost());
      }
      if (parsed.username() != null) {
        username(parsed.username());
      }
      if (parsed.password() != null) {
        password(parsed.password());
      }
      return this;
    }

    /**
     * Sets the host.
     *
     * @param host the broker's host name or address
     * @return this builder
     */
    public Builder host(String host) {
      this.host = requireText("host", host);
      return this;
    }

    /**
     * Sets the port.
     *
     * @param port 1 to 65535
     * @return this builder
     */
    public Builder port(int port) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 1 and 65535, but was " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Sets the virtual host.
     *
     * @param virtualHost the virtual host, e.g. {@code /}
     * @return this builder
     */
    public Builder virtualHost(String virtualHost) {
      this.virtualHost = requireText("virtualHost", virtualHost);
      return this;
    }

    /**
     * Sets the username.
     *
     * @param username the user
     * @return this builder
     */
    public Builder username(String username) {
      this.username = requireText("username", username);
      return this;
    }

    /**
     * Sets the password.
     *
     * @param password the password; never printed
     * @return this builder
     */
    public Builder password(String password) {
      if (password == null) {
        throw new IllegalArgumentException("password must not be null");
      }
      this.password = password;
      return this;
    }

    /**
     * Turns TLS on or off.
     *
     * @param tls whether to connect with TLS
     * @return this builder
     */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Sets the TLS context.
     *
     * @param sslContext the TLS context (turns TLS on); null for the JVM's
     * @return this builder
     */
    public Builder sslContext(SSLContext sslContext) {
      this.sslContext = sslContext;
      this.tls |= sslContext != null;
      return this;
    }

    /**
     * Sets the exchange.
     *
     * @param exchange the exchange every message goes to; "" is the default exchange
     * @return this builder
     */
    public Builder exchange(String exchange) {
      if (exchange == null || exchange.length() > 255) {
        throw new IllegalArgumentException(
            "exchange must be a name of at most 255 characters, but was " + quote(exchange));
      }
      this.exchange = exchange;
      return this;
    }

    /**
     * Sets the exchange type.
     *
     * @param type direct, fanout, topic, headers or a plugin's type
     * @return this builder
     */
    public Builder exchangeType(String type) {
      this.exchangeType = requireText("exchangeType", type);
      return this;
    }

    /**
     * Sets whether a declared exchange is durable.
     *
     * @param durable whether a declared exchange survives restarts
     * @return this builder
     */
    public Builder exchangeDurable(boolean durable) {
      this.exchangeDurable = durable;
      return this;
    }

    /**
     * Sets whether to declare the exchange.
     *
     * @param declare whether to declare the exchange when connecting
     * @return this builder
     */
    public Builder declareExchange(boolean declare) {
      this.declareExchange = declare;
      return this;
    }

    /**
     * The routing key of each message, computed by a function.
     *
     * @param routingKey from the message to its routing key (at most 255 bytes)
     * @return this builder
     */
    public Builder routingKey(Function<OutboxMessage, String> routingKey) {
      this.routingKey = Objects.requireNonNull(routingKey, "routingKey must not be null");
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
      this.routingKey = RoutingKeyTemplate.of(template);
      return this;
    }

    /**
     * Sets the AMQP app-id.
     *
     * @param appId the AMQP app-id of every message, null for none
     * @return this builder
     */
    public Builder appId(String appId) {
      if (appId != null
          && (appId.isBlank() || appId.getBytes(StandardCharsets.UTF_8).length > 255)) {
        throw new IllegalArgumentException(
            "appId must be null or 1 to 255 bytes of text, but was " + quote(appId));
      }
      this.appId = appId;
      return this;
    }

    /**
     * Sets the connection name.
     *
     * @param name the client-provided connection name
     * @return this builder
     */
    public Builder connectionName(String name) {
      this.connectionName = requireText("connectionName", name);
      return this;
    }

    /**
     * Sets the connection timeout.
     *
     * @param timeout the limit of connect and handshake, &gt; 0
     * @return this builder
     */
    public Builder connectionTimeout(Duration timeout) {
      this.connectionTimeout = requireDuration("connectionTimeout", timeout, false);
      return this;
    }

    /**
     * Sets the heartbeat.
     *
     * @param heartbeat the requested heartbeat, 0 for none
     * @return this builder
     */
    public Builder heartbeat(Duration heartbeat) {
      this.heartbeat = requireDuration("heartbeat", heartbeat, true);
      return this;
    }

    /**
     * Sets the recovery interval.
     *
     * @param interval the pause between recovery attempts, &gt; 0
     * @return this builder
     */
    public Builder recoveryInterval(Duration interval) {
      this.recoveryInterval = requireDuration("recoveryInterval", interval, false);
      return this;
    }

    /**
     * @return the options
     */
    public RabbitMqPublisherOptions build() {
      return new RabbitMqPublisherOptions(this);
    }
  }

  static String requireText(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, but was " + quote(value));
    }
    return value;
  }

  static String quote(String value) {
    return value == null ? "null" : '"' + value + '"';
  }

  static Duration requireDuration(String field, Duration value, boolean zeroAllowed) {
    Objects.requireNonNull(value, field + " must not be null");
    if (value.isNegative() || (!zeroAllowed && value.isZero())) {
      throw new IllegalArgumentException(
          field + " must be " + (zeroAllowed ? ">= 0" : "> 0") + ", but was " + value);
    }
    return value;
  }
}
