package dev.outbox.servicebus;

import com.azure.core.amqp.AmqpTransportType;
import com.azure.core.credential.TokenCredential;
import dev.outbox.OutboxMessage;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * How {@link ServiceBusEventPublisher} reaches Service Bus and where it sends each message. An
 * immutable value: {@link #builder()}, {@link #toBuilder()}; every setter checks its value at once
 * and names the field and the bad value. Either a connection string or a namespace with a {@link
 * TokenCredential} is required. The connection string (it holds the access key) never appears in
 * {@link #toString()}. The options come in three groups, in this order below and in the builder:
 * the connection (a connection string, or a namespace with a credential), the entity (queue or
 * topic, sessions, correlation id), and the client (try timeout, retries, transport).
 *
 * <pre>{@code
 * ServiceBusPublisherOptions options = ServiceBusPublisherOptions.builder()
 *     .connectionString(System.getenv("SERVICEBUS_CONNECTION_STRING"))
 *     .entity("orders")
 *     .build();
 * }</pre>
 */
public final class ServiceBusPublisherOptions {

  /** Default of {@link #entityResolver()}'s entity: {@value}. */
  public static final String DEFAULT_ENTITY = "outbox-events";

  /** Default of {@link #correlationIdHeader()}. */
  public static final String DEFAULT_CORRELATION_ID_HEADER = "correlation-id";

  /** Default of {@link #tryTimeout()}. */
  public static final Duration DEFAULT_TRY_TIMEOUT = Duration.ofSeconds(10);

  /** Default of {@link #maxRetries()}: the outbox retries on its own schedule. */
  public static final int DEFAULT_MAX_RETRIES = 0;

  /** Default of {@link #transportType()}. */
  public static final AmqpTransportType DEFAULT_TRANSPORT_TYPE = AmqpTransportType.AMQP;

  private final ConnectionSettings connection;
  private final EntitySettings entity;
  private final ClientSettings client;

  private static final OptionsBinder<Builder> BINDER =
      OptionsBinder.<Builder>of("Service Bus publisher")
          .secret("connection-string", Builder::connectionString)
          .string("entity", Builder::entity)
          .bool("session-enabled", Builder::sessionEnabled)
          .string("correlation-id-header", Builder::correlationIdHeader)
          .duration("try-timeout", Builder::tryTimeout)
          .integer("max-retries", Builder::maxRetries)
          .string("transport-type", (b, v) -> b.transportType(ClientSettings.parseTransport(v)));

  private ServiceBusPublisherOptions(Builder builder) {
    this.connection = builder.connection;
    this.entity = builder.entity;
    this.client = builder.client;
  }

  /**
   * A builder holding the defaults.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Options read from properties with the outbox's one key grammar ({@link OptionsBinder}): under
   * the prefix {@code outbox.servicebus}, {@code outbox.servicebus.connection-string}, {@code
   * entity}, {@code session-enabled}, {@code correlation-id-header}, {@code try-timeout} (such as
   * {@code 500ms}, {@code 5s} or {@code PT5S}), {@code max-retries} and {@code transport-type}
   * ({@code amqp} or {@code amqp-web-sockets}); each also in environment form ({@code
   * OUTBOX_SERVICEBUS_CONNECTION_STRING}). A namespace needs a credential, so it is set in code
   * with {@link Builder#namespace(String, TokenCredential)}. An unknown key under the prefix is an
   * error that lists the known ones.
   *
   * @param properties for example {@code System.getProperties()}
   * @param prefix for example {@code outbox.servicebus}
   * @return the options
   * @throws IllegalArgumentException when a key is unknown, a value is invalid (a connection
   *     string's is never shown), or neither a connection string nor a namespace is given
   */
  public static ServiceBusPublisherOptions fromProperties(Properties properties, String prefix) {
    return builder().bind(properties, prefix).build();
  }

  /**
   * The same from a map, such as {@code fromMap(System.getenv(), "OUTBOX_SERVICEBUS_")}.
   *
   * @param values the values by key
   * @param prefix for example {@code OUTBOX_SERVICEBUS_}
   * @return the options
   * @throws IllegalArgumentException as {@link #fromProperties} does
   */
  public static ServiceBusPublisherOptions fromMap(Map<String, String> values, String prefix) {
    return builder().bind(values, prefix).build();
  }

  /**
   * The keys {@link #fromMap} reads under a prefix, in dotted form.
   *
   * @param prefix for example {@code outbox.servicebus}
   * @return the keys
   */
  public static List<String> keys(String prefix) {
    return BINDER.keys(prefix);
  }

  /**
   * A builder holding these options, to derive changed ones.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  // Connection: a connection string, or a namespace with a credential

  /**
   * The connection string ({@code Endpoint=sb://...;SharedAccessKeyName=...;SharedAccessKey=...}).
   *
   * @return the connection string, or {@code null} when a namespace and credential are used
   */
  public String connectionString() {
    return connection.connectionString();
  }

  /**
   * The fully qualified namespace ({@code my-namespace.servicebus.windows.net}), used with {@link
   * #credential()}.
   *
   * @return the namespace, or {@code null} when a connection string is used
   */
  public String namespace() {
    return connection.namespace();
  }

  /**
   * The Microsoft Entra credential used with {@link #namespace()}.
   *
   * @return the credential, or {@code null} when a connection string is used
   */
  public TokenCredential credential() {
    return connection.credential();
  }

  // Entity: queue or topic, sessions, correlation id

  /**
   * Which queue or topic each message goes to.
   *
   * @return default: always {@value #DEFAULT_ENTITY}
   */
  public Function<OutboxMessage, String> entityResolver() {
    return entity.entityResolver();
  }

  /**
   * Whether the entities are session-enabled: then {@code SessionId} is the aggregate id (ordered
   * delivery per aggregate), otherwise {@code PartitionKey} is.
   *
   * @return default {@code false}
   */
  public boolean sessionEnabled() {
    return entity.sessionEnabled();
  }

  /**
   * The row header whose value becomes the native {@code CorrelationId}.
   *
   * @return default {@value #DEFAULT_CORRELATION_ID_HEADER}
   */
  public String correlationIdHeader() {
    return entity.correlationIdHeader();
  }

  // Client: try timeout, retries, transport

  /**
   * How long the SDK waits for one try of an operation (connect, create batch, send). Keep {@code
   * tryTimeout * (maxRetries + 1)} below the outbox's publish timeout; the publisher gives up at
   * the publish timeout in any case.
   *
   * @return default 10 seconds
   */
  public Duration tryTimeout() {
    return client.tryTimeout();
  }

  /**
   * How often the SDK retries an operation within one publish call.
   *
   * @return default {@value #DEFAULT_MAX_RETRIES}
   */
  public int maxRetries() {
    return client.maxRetries();
  }

  /**
   * AMQP over TCP 5671, or AMQP over web sockets on 443.
   *
   * @return default {@link AmqpTransportType#AMQP}
   */
  public AmqpTransportType transportType() {
    return client.transportType();
  }

  @Override
  public String toString() {
    return "ServiceBusPublisherOptions[connectionString="
        + (connection.connectionString() == null ? "none" : "****")
        + ", namespace="
        + connection.namespace()
        + ", credential="
        + (connection.credential() == null
            ? "none"
            : connection.credential().getClass().getSimpleName())
        + ", entity="
        + entity.entityDescription()
        + ", sessionEnabled="
        + entity.sessionEnabled()
        + ", correlationIdHeader="
        + entity.correlationIdHeader()
        + ", tryTimeout="
        + client.tryTimeout()
        + ", maxRetries="
        + client.maxRetries()
        + ", transportType="
        + client.transportType()
        + ']';
  }

  /** Builds {@link ServiceBusPublisherOptions}. Not thread-safe. */
  public static final class Builder {
    private ConnectionSettings connection = ConnectionSettings.DEFAULTS;
    private EntitySettings entity = EntitySettings.DEFAULTS;
    private ClientSettings client = ClientSettings.DEFAULTS;

    private Builder() {}

    private Builder(ServiceBusPublisherOptions options) {
      this.connection = options.connection;
      this.entity = options.entity;
      this.client = options.client;
    }

    // Connection: a connection string, or a namespace with a credential

    /**
     * Connects with a connection string; clears any namespace.
     *
     * @param connectionString {@code Endpoint=sb://...;SharedAccessKeyName=...;SharedAccessKey=...}
     * @return this builder
     */
    public Builder connectionString(String connectionString) {
      connection = connection.withConnectionString(connectionString);
      return this;
    }

    /**
     * Connects to a namespace with a credential; clears any connection string.
     *
     * @param namespace {@code my-namespace.servicebus.windows.net}
     * @param credential for example {@code new DefaultAzureCredentialBuilder().build()}
     * @return this builder
     */
    public Builder namespace(String namespace, TokenCredential credential) {
      connection = connection.withNamespace(namespace, credential);
      return this;
    }

    // Entity: queue or topic, sessions, correlation id

    /**
     * Sends every message to one queue or topic.
     *
     * @param entity the queue or topic name
     * @return this builder
     */
    public Builder entity(String entity) {
      this.entity = this.entity.withEntity(entity);
      return this;
    }

    /**
     * Chooses the queue or topic per message, for example by aggregate type.
     *
     * @param resolver returns the entity name of a message; an exception or a blank name fails that
     *     message without retry
     * @return this builder
     */
    public Builder entityResolver(Function<OutboxMessage, String> resolver) {
      entity = entity.withEntityResolver(resolver);
      return this;
    }

    /**
     * Whether the entities are session-enabled; see {@link #sessionEnabled()}.
     *
     * @param sessionEnabled {@code true} to set {@code SessionId} instead of {@code PartitionKey}
     * @return this builder
     */
    public Builder sessionEnabled(boolean sessionEnabled) {
      entity = entity.withSessionEnabled(sessionEnabled);
      return this;
    }

    /**
     * The row header that becomes {@code CorrelationId}.
     *
     * @param header a header name
     * @return this builder
     */
    public Builder correlationIdHeader(String header) {
      entity = entity.withCorrelationIdHeader(header);
      return this;
    }

    // Client: try timeout, retries, transport

    /**
     * The SDK's timeout of one try.
     *
     * @param tryTimeout positive
     * @return this builder
     */
    public Builder tryTimeout(Duration tryTimeout) {
      client = client.withTryTimeout(tryTimeout);
      return this;
    }

    /**
     * The SDK's retries within one publish call.
     *
     * @param maxRetries 0 to 10
     * @return this builder
     */
    public Builder maxRetries(int maxRetries) {
      client = client.withMaxRetries(maxRetries);
      return this;
    }

    /**
     * The transport.
     *
     * @param transportType AMQP or AMQP over web sockets
     * @return this builder
     */
    public Builder transportType(AmqpTransportType transportType) {
      client = client.withTransportType(transportType);
      return this;
    }

    // Binding from keys

    /**
     * Sets every option the properties hold under the prefix: see {@link
     * ServiceBusPublisherOptions#fromProperties}.
     *
     * @param properties the properties
     * @param prefix for example {@code outbox.servicebus}
     * @return this builder
     */
    public Builder bind(Properties properties, String prefix) {
      return BINDER.bind(properties, prefix, this);
    }

    /**
     * Sets every option the map holds under the prefix: see {@link
     * ServiceBusPublisherOptions#fromProperties}.
     *
     * @param values the values by key
     * @param prefix for example {@code OUTBOX_SERVICEBUS_}
     * @return this builder
     */
    public Builder bind(Map<String, String> values, String prefix) {
      return BINDER.bind(values, prefix, this);
    }

    /**
     * Checks that a connection string or a namespace with a credential is set.
     *
     * @return the options
     * @throws IllegalArgumentException when neither is set
     */
    public ServiceBusPublisherOptions build() {
      connection.checkTogether();
      return new ServiceBusPublisherOptions(this);
    }
  }
}
