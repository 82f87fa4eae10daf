package dev.outbox.nats;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.internal.NatsOptionKeys;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * How {@link NatsEventPublisher} connects to NATS and where it publishes. An immutable value:
 * {@link #builder()}, {@link #defaults()}, {@link #toBuilder()}, or {@link
 * #fromProperties(Properties, String)} to bind it from the environment. Every setter validates and
 * names the field and the bad value. Passwords, tokens and the credentials file never appear in
 * {@link #toString()}, nor do credentials embedded in server URLs. The options come in four groups,
 * in this order below and in the builder: the connection (servers, TLS, trust store),
 * authentication (user and password, token or credentials file), the client (connection name,
 * timeouts, reconnects, the jnats customizer), and the subjects (prefix, subject function, stream).
 *
 * <pre>{@code
 * NatsPublisherOptions options = NatsPublisherOptions.builder()
 *     .servers(List.of("nats://nats-1:4222", "nats://nats-2:4222"))
 *     .token(System.getenv("NATS_TOKEN"))
 *     .subjectPrefix("orders")
 *     .stream(NatsStreamOptions.builder().create(true).name("ORDERS").build())
 *     .build();
 * }</pre>
 */
public final class NatsPublisherOptions {

  /** Default of {@link #servers()}. */
  public static final List<String> DEFAULT_SERVERS = List.of("nats://localhost:4222");

  /** Default of {@link #subjectPrefix()}. */
  public static final String DEFAULT_SUBJECT_PREFIX = "events";

  /** Default of {@link #connectionTimeout()}. */
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(2);

  /** Default of {@link #reconnectWait()}. */
  public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofSeconds(1);

  /** Default of {@link #connectionName()}. */
  public static final String DEFAULT_CONNECTION_NAME = "outbox-publisher";

  /**
   * The defaults, built on first use rather than with this class, so that the settings records may
   * read the constants above whichever of them is loaded first.
   */
  private static final class Defaults {
    static final NatsPublisherOptions VALUE = builder().build();
  }

  private final ConnectionSettings connection;
  private final AuthSettings auth;
  private final ClientSettings client;
  private final SubjectSettings subjects;

  private NatsPublisherOptions(Builder b) {
    connection = b.connection;
    auth = b.auth;
    client = b.client;
    subjects = b.subjects;
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
   * The options with every default: {@code nats://localhost:4222}, subjects {@code
   * events.<aggregateType>.<eventType>}, no stream created.
   *
   * @return the default options
   */
  public static NatsPublisherOptions defaults() {
    return Defaults.VALUE;
  }

  /**
   * A builder holding these options.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Reads the options from properties with the outbox's one key grammar ({@link OptionsBinder}):
   * under the prefix {@code outbox.nats}, {@code outbox.nats.servers}, {@code username}, {@code
   * password}, {@code token}, {@code credentials-file}, {@code tls}, {@code truststore-path},
   * {@code truststore-password}, {@code connection-name}, {@code connection-timeout}, {@code
   * reconnect-wait}, {@code subject-prefix}, {@code stream-create}, {@code stream-name}, {@code
   * stream-subjects}, {@code stream-storage}, {@code stream-duplicate-window} and {@code
   * stream-replicas}; each also in environment form ({@code OUTBOX_NATS_STREAM_NAME}). Lists are
   * comma-separated; durations are {@code 500ms}, {@code 2s}, {@code 2m} or ISO-8601. Unset keys
   * keep their defaults; an unknown key under the prefix is an error that lists the known ones.
   *
   * @param properties the properties
   * @param prefix e.g. {@code outbox.nats}
   * @return the options
   * @throws IllegalArgumentException naming the key and the bad value (never a secret's)
   */
  public static NatsPublisherOptions fromProperties(Properties properties, String prefix) {
    return NatsOptionKeys.BINDER.bind(properties, prefix, new NatsOptionKeys.Target()).build();
  }

  /**
   * The same from a map, e.g. {@code fromMap(System.getenv(), "OUTBOX_NATS")}.
   *
   * @param map keys to values
   * @param prefix e.g. {@code OUTBOX_NATS}
   * @return the options
   * @throws IllegalArgumentException naming the key and the bad value (never a secret's)
   */
  public static NatsPublisherOptions fromMap(Map<String, String> map, String prefix) {
    return NatsOptionKeys.BINDER.bind(map, prefix, new NatsOptionKeys.Target()).build();
  }

  /**
   * The keys {@link #fromMap} reads under a prefix, in dotted form.
   *
   * @param prefix e.g. {@code outbox.nats}
   * @return the keys
   */
  public static List<String> keys(String prefix) {
    return NatsOptionKeys.BINDER.keys(prefix);
  }

  // Connection: servers and TLS

  /**
   * The servers to connect to; the connection fails over among them and reconnects forever.
   *
   * @return default {@code nats://localhost:4222}
   */
  public List<String> servers() {
    return connection.servers();
  }

  /**
   * Whether to use TLS with the JVM's default trust (or {@link #truststorePath()}). A {@code
   * tls://} server URL turns it on as well.
   *
   * @return default {@code false}
   */
  public boolean tls() {
    return connection.tls();
  }

  /**
   * A trust store for TLS; setting it turns TLS on.
   *
   * @return empty by default: the JVM's trust
   */
  public Optional<String> truststorePath() {
    return Optional.ofNullable(connection.truststorePath());
  }

  /**
   * The trust store's password. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> truststorePassword() {
    return Optional.ofNullable(connection.truststorePassword());
  }

  // Authentication: user and password, token or credentials file

  /**
   * The user name of user/password authentication.
   *
   * @return empty by default
   */
  public Optional<String> username() {
    return Optional.ofNullable(auth.username());
  }

  /**
   * The password of user/password authentication. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> password() {
    return Optional.ofNullable(auth.password());
  }

  /**
   * The authentication token. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> token() {
    return Optional.ofNullable(auth.token());
  }

  /**
   * The path of a {@code .creds} file (JWT and NKey seed). Never printed.
   *
   * @return empty by default
   */
  public Optional<String> credentialsFile() {
    return Optional.ofNullable(auth.credentialsFile());
  }

  // Client: name, timeouts, reconnects, customizer

  /**
   * The connection name the server shows in its monitoring.
   *
   * @return default {@value #DEFAULT_CONNECTION_NAME}
   */
  public String connectionName() {
    return client.connectionName();
  }

  /**
   * How long one connection attempt may take.
   *
   * @return default 2 s
   */
  public Duration connectionTimeout() {
    return client.connectionTimeout();
  }

  /**
   * The pause between reconnect attempts to the same server.
   *
   * @return default 1 s
   */
  public Duration reconnectWait() {
    return client.reconnectWait();
  }

  /**
   * A hook that adjusts the jnats {@code Options.Builder} last, for what these options do not cover
   * (an {@code SSLContext}, an {@code AuthHandler}, buffer sizes).
   *
   * @return empty by default
   */
  public Optional<Consumer<io.nats.client.Options.Builder>> customizer() {
    return Optional.ofNullable(client.customizer());
  }

  // Subjects: prefix, subject function, stream

  /**
   * The first token(s) of the default subject {@code <prefix>.<aggregateType>.<eventType>}.
   *
   * @return default {@value #DEFAULT_SUBJECT_PREFIX}
   */
  public String subjectPrefix() {
    return subjects.subjectPrefix();
  }

  /**
   * Resolves the subject of a message. The returned subject must be covered by a stream.
   *
   * @return default {@code <subjectPrefix>.<aggregateType>.<eventType>}, with whitespace, {@code *}
   *     and {@code >} replaced by {@code _}
   */
  public Function<OutboxMessage, String> subjectFunction() {
    return subjects.subjectFunction();
  }

  /**
   * The stream to create at start, if any.
   *
   * @return default {@link NatsStreamOptions#defaults()}: none is created
   */
  public NatsStreamOptions stream() {
    return subjects.stream();
  }

  /**
   * The subjects a created stream captures: {@link NatsStreamOptions#subjects()}, or {@code
   * <subjectPrefix>.>} when those are empty.
   *
   * @return the subjects
   */
  public List<String> streamSubjects() {
    return subjects.streamSubjects();
  }

  @Override
  public String toString() {
    return "NatsPublisherOptions[servers="
        + connection.redactedServers()
        + ", auth="
        + auth.mode()
        + ", tls="
        + connection.usesTls()
        + ", truststorePath="
        + connection.truststorePath()
        + ", connectionName="
        + client.connectionName()
        + ", connectionTimeout="
        + client.connectionTimeout()
        + ", reconnectWait="
        + client.reconnectWait()
        + ", subjectPrefix="
        + subjects.subjectPrefix()
        + ", subjectFunction="
        + (subjects.customSubjectFunction() == null ? "default" : "custom")
        + ", stream="
        + subjects.stream()
        + ", customizer="
        + (client.customizer() == null ? "none" : "set")
        + ']';
  }

  /** Builds {@link NatsPublisherOptions}; every setter validates its argument. */
  public static final class Builder {
    private ConnectionSettings connection = ConnectionSettings.DEFAULTS;
    private AuthSettings auth = AuthSettings.DEFAULTS;
    private ClientSettings client = ClientSettings.DEFAULTS;
    private SubjectSettings subjects = SubjectSettings.DEFAULTS;

    private Builder() {}

    private Builder(NatsPublisherOptions o) {
      connection = o.connection;
      auth = o.auth;
      client = o.client;
      subjects = o.subjects;
    }

    // Connection: servers and TLS

    /**
     * Sets {@link NatsPublisherOptions#servers()}.
     *
     * @param servers one or more URLs ({@code nats://host:4222}, {@code tls://host:4222}) or {@code
     *     host:port}, without whitespace
     * @return this builder
     */
    public Builder servers(List<String> servers) {
      connection = connection.withServers(servers);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#tls()}.
     *
     * @param tls whether to use TLS
     * @return this builder
     */
    public Builder tls(boolean tls) {
      connection = connection.withTls(tls);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#truststorePath()} and its password.
     *
     * @param path the trust store file, non-blank
     * @param password its password, or {@code null}
     * @return this builder
     */
    public Builder truststore(String path, String password) {
      connection = connection.withTruststore(path, password);
      return this;
    }

    // Authentication: user and password, token or credentials file

    /**
     * Sets the user name and password ({@link NatsPublisherOptions#username()}, {@link
     * NatsPublisherOptions#password()}).
     *
     * @param username non-blank
     * @param password not null
     * @return this builder
     */
    public Builder userPassword(String username, String password) {
      auth = auth.withUserPassword(username, password);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#token()}.
     *
     * @param token non-blank
     * @return this builder
     */
    public Builder token(String token) {
      auth = auth.withToken(token);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#credentialsFile()}.
     *
     * @param path the {@code .creds} file, non-blank
     * @return this builder
     */
    public Builder credentialsFile(String path) {
      auth = auth.withCredentialsFile(path);
      return this;
    }

    // Client: name, timeouts, reconnects, customizer

    /**
     * Sets {@link NatsPublisherOptions#connectionName()}.
     *
     * @param name non-blank
     * @return this builder
     */
    public Builder connectionName(String name) {
      client = client.withConnectionName(name);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#connectionTimeout()}.
     *
     * @param timeout &gt; 0
     * @return this builder
     */
    public Builder connectionTimeout(Duration timeout) {
      client = client.withConnectionTimeout(timeout);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#reconnectWait()}.
     *
     * @param wait &gt; 0
     * @return this builder
     */
    public Builder reconnectWait(Duration wait) {
      client = client.withReconnectWait(wait);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#customizer()}.
     *
     * @param customizer adjusts the jnats options last, or {@code null}
     * @return this builder
     */
    public Builder customizer(Consumer<io.nats.client.Options.Builder> customizer) {
      client = client.withCustomizer(customizer);
      return this;
    }

    // Subjects: prefix, subject function, stream

    /**
     * Sets {@link NatsPublisherOptions#subjectPrefix()}.
     *
     * @param prefix one or more subject tokens without wildcards ({@code events}, {@code
     *     acme.events})
     * @return this builder
     */
    public Builder subjectPrefix(String prefix) {
      subjects = subjects.withSubjectPrefix(prefix);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#subjectFunction()}.
     *
     * @param function message to subject, or {@code null} for the default
     * @return this builder
     */
    public Builder subjectFunction(Function<OutboxMessage, String> function) {
      subjects = subjects.withSubjectFunction(function);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#stream()}.
     *
     * @param stream not null
     * @return this builder
     */
    public Builder stream(NatsStreamOptions stream) {
      subjects = subjects.withStream(stream);
      return this;
    }

    /**
     * Checks the fields against each other and builds the options.
     *
     * @return the options
     * @throws IllegalArgumentException when more than one authentication method is set
     */
    public NatsPublisherOptions build() {
      auth.checkTogether();
      return new NatsPublisherOptions(this);
    }
  }
}
