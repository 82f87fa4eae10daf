package dev.outbox.nats;

import dev.outbox.OutboxMessage;
import dev.outbox.nats.internal.NatsOptionKeys;
import dev.outbox.nats.internal.Redaction;
import dev.outbox.nats.internal.Subjects;
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
 * {@link #toString()}, nor do credentials embedded in server URLs.
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

  private static final NatsPublisherOptions DEFAULTS = builder().build();

  private final List<String> servers;
  private final String username;
  private final String password;
  private final String token;
  private final String credentialsFile;
  private final boolean tls;
  private final String truststorePath;
  private final String truststorePassword;
  private final String connectionName;
  private final Duration connectionTimeout;
  private final Duration reconnectWait;
  private final String subjectPrefix;
  private final Function<OutboxMessage, String> subjectFunction;
  private final NatsStreamOptions stream;
  private final Consumer<io.nats.client.Options.Builder> customizer;

  private NatsPublisherOptions(Builder b) {
    servers = b.servers;
    username = b.username;
    password = b.password;
    token = b.token;
    credentialsFile = b.credentialsFile;
    tls = b.tls;
    truststorePath = b.truststorePath;
    truststorePassword = b.truststorePassword;
    connectionName = b.connectionName;
    connectionTimeout = b.connectionTimeout;
    reconnectWait = b.reconnectWait;
    subjectPrefix = b.subjectPrefix;
    subjectFunction = b.subjectFunction;
    stream = b.stream;
    customizer = b.customizer;
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
    return DEFAULTS;
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

  /**
   * The servers to connect to; the connection fails over among them and reconnects forever.
   *
   * @return default {@code nats://localhost:4222}
   */
  public List<String> servers() {
    return servers;
  }

  /**
   * The user name of user/password authentication.
   *
   * @return empty by default
   */
  public Optional<String> username() {
    return Optional.ofNullable(username);
  }

  /**
   * The password of user/password authentication. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /**
   * The authentication token. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> token() {
    return Optional.ofNullable(token);
  }

  /**
   * The path of a {@code .creds} file (JWT and NKey seed). Never printed.
   *
   * @return empty by default
   */
  public Optional<String> credentialsFile() {
    return Optional.ofNullable(credentialsFile);
  }

  /**
   * Whether to use TLS with the JVM's default trust (or {@link #truststorePath()}). A {@code
   * tls://} server URL turns it on as well.
   *
   * @return default {@code false}
   */
  public boolean tls() {
    return tls;
  }

  /**
   * A trust store for TLS; setting it turns TLS on.
   *
   * @return empty by default: the JVM's trust
   */
  public Optional<String> truststorePath() {
    return Optional.ofNullable(truststorePath);
  }

  /**
   * The trust store's password. Never printed.
   *
   * @return empty by default
   */
  public Optional<String> truststorePassword() {
    return Optional.ofNullable(truststorePassword);
  }

  /**
   * The connection name the server shows in its monitoring.
   *
   * @return default {@value #DEFAULT_CONNECTION_NAME}
   */
  public String connectionName() {
    return connectionName;
  }

  /**
   * How long one connection attempt may take.
   *
   * @return default 2 s
   */
  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  /**
   * The pause between reconnect attempts to the same server.
   *
   * @return default 1 s
   */
  public Duration reconnectWait() {
    return reconnectWait;
  }

  /**
   * The first token(s) of the default subject {@code <prefix>.<aggregateType>.<eventType>}.
   *
   * @return default {@value #DEFAULT_SUBJECT_PREFIX}
   */
  public String subjectPrefix() {
    return subjectPrefix;
  }

  /**
   * Resolves the subject of a message. The returned subject must be covered by a stream.
   *
   * @return default {@code <subjectPrefix>.<aggregateType>.<eventType>}, with whitespace, {@code *}
   *     and {@code >} replaced by {@code _}
   */
  public Function<OutboxMessage, String> subjectFunction() {
    return subjectFunction != null
        ? subjectFunction
        : m -> Subjects.defaultSubject(subjectPrefix, m);
  }

  /**
   * The stream to create at start, if any.
   *
   * @return default {@link NatsStreamOptions#defaults()}: none is created
   */
  public NatsStreamOptions stream() {
    return stream;
  }

  /**
   * The subjects a created stream captures: {@link NatsStreamOptions#subjects()}, or {@code
   * <subjectPrefix>.>} when those are empty.
   *
   * @return the subjects
   */
  public List<String> streamSubjects() {
    return stream.subjects().isEmpty() ? List.of(subjectPrefix + ".>") : stream.subjects();
  }

  /**
   * A hook that adjusts the jnats {@code Options.Builder} last, for what these options do not cover
   * (an {@code SSLContext}, an {@code AuthHandler}, buffer sizes).
   *
   * @return empty by default
   */
  public Optional<Consumer<io.nats.client.Options.Builder>> customizer() {
    return Optional.ofNullable(customizer);
  }

  @Override
  public String toString() {
    return "NatsPublisherOptions[servers="
        + servers.stream().map(Redaction::url).toList()
        + ", auth="
        + authMode()
        + ", tls="
        + (tls || truststorePath != null)
        + ", truststorePath="
        + truststorePath
        + ", connectionName="
        + connectionName
        + ", connectionTimeout="
        + connectionTimeout
        + ", reconnectWait="
        + reconnectWait
        + ", subjectPrefix="
        + subjectPrefix
        + ", subjectFunction="
        + (subjectFunction == null ? "default" : "custom")
        + ", stream="
        + stream
        + ", customizer="
        + (customizer == null ? "none" : "set")
        + ']';
  }

  private String authMode() {
    if (credentialsFile != null) {
      return "credentials-file(****)";
    }
    if (token != null) {
      return "token(****)";
    }
    if (username != null) {
      return "user-password(****)";
    }
    return "none";
  }

  /** Builds {@link NatsPublisherOptions}; every setter validates its argument. */
  public static final class Builder {
    private List<String> servers = DEFAULT_SERVERS;
    private String username;
    private String password;
    private String token;
    private String credentialsFile;
    private boolean tls;
    private String truststorePath;
    private String truststorePassword;
    private String connectionName = DEFAULT_CONNECTION_NAME;
    private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
    private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
    private String subjectPrefix = DEFAULT_SUBJECT_PREFIX;
    private Function<OutboxMessage, String> subjectFunction;
    private NatsStreamOptions stream = NatsStreamOptions.defaults();
    private Consumer<io.nats.client.Options.Builder> customizer;

    private Builder() {}

    private Builder(NatsPublisherOptions o) {
      servers = o.servers;
      username = o.username;
      password = o.password;
      token = o.token;
      credentialsFile = o.credentialsFile;
      tls = o.tls;
      truststorePath = o.truststorePath;
      truststorePassword = o.truststorePassword;
      connectionName = o.connectionName;
      connectionTimeout = o.connectionTimeout;
      reconnectWait = o.reconnectWait;
      subjectPrefix = o.subjectPrefix;
      subjectFunction = o.subjectFunction;
      stream = o.stream;
      customizer = o.customizer;
    }

    /**
     * Sets {@link NatsPublisherOptions#servers()}.
     *
     * @param servers one or more URLs ({@code nats://host:4222}, {@code tls://host:4222}) or {@code
     *     host:port}, without whitespace
     * @return this builder
     */
    public Builder servers(List<String> servers) {
      if (servers == null || servers.isEmpty()) {
        throw new IllegalArgumentException(
            "servers must name at least one server, but was " + servers);
      }
      for (String server : servers) {
        if (server == null
            || server.isBlank()
            || server.chars().anyMatch(Character::isWhitespace)) {
          throw new IllegalArgumentException(
              "servers must be URLs without whitespace, but contained "
                  + (server == null ? "null" : '"' + Redaction.url(server) + '"'));
        }
      }
      this.servers = List.copyOf(servers);
      return this;
    }

    /**
     * Sets the user name and password ({@link NatsPublisherOptions#username()}, {@link
     * NatsPublisherOptions#password()}).
     *
     * @param username non-blank
     * @param password not null
     * @return this builder
     */
    public Builder userPassword(String username, String password) {
      if (username == null || username.isBlank()) {
        throw new IllegalArgumentException(
            "username must not be blank, but was " + quote(username));
      }
      if (password == null) {
        throw new IllegalArgumentException("password must not be null");
      }
      this.username = username;
      this.password = password;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#token()}.
     *
     * @param token non-blank
     * @return this builder
     */
    public Builder token(String token) {
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("token must not be blank");
      }
      this.token = token;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#credentialsFile()}.
     *
     * @param path the {@code .creds} file, non-blank
     * @return this builder
     */
    public Builder credentialsFile(String path) {
      if (path == null || path.isBlank()) {
        throw new IllegalArgumentException("credentialsFile must not be blank");
      }
      this.credentialsFile = path;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#tls()}.
     *
     * @param tls whether to use TLS
     * @return this builder
     */
    public Builder tls(boolean tls) {
      this.tls = tls;
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
      if (path == null || path.isBlank()) {
        throw new IllegalArgumentException(
            "truststorePath must not be blank, but was " + quote(path));
      }
      this.truststorePath = path;
      this.truststorePassword = password;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#connectionName()}.
     *
     * @param name non-blank
     * @return this builder
     */
    public Builder connectionName(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(
            "connectionName must not be blank, but was " + quote(name));
      }
      this.connectionName = name;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#connectionTimeout()}.
     *
     * @param timeout &gt; 0
     * @return this builder
     */
    public Builder connectionTimeout(Duration timeout) {
      this.connectionTimeout = positive("connectionTimeout", timeout);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#reconnectWait()}.
     *
     * @param wait &gt; 0
     * @return this builder
     */
    public Builder reconnectWait(Duration wait) {
      this.reconnectWait = positive("reconnectWait", wait);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#subjectPrefix()}.
     *
     * @param prefix one or more subject tokens without wildcards ({@code events}, {@code
     *     acme.events})
     * @return this builder
     */
    public Builder subjectPrefix(String prefix) {
      this.subjectPrefix = Subjects.check("subjectPrefix", prefix, false);
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#subjectFunction()}.
     *
     * @param function message to subject, or {@code null} for the default
     * @return this builder
     */
    public Builder subjectFunction(Function<OutboxMessage, String> function) {
      this.subjectFunction = function;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#stream()}.
     *
     * @param stream not null
     * @return this builder
     */
    public Builder stream(NatsStreamOptions stream) {
      if (stream == null) {
        throw new IllegalArgumentException("stream must not be null");
      }
      this.stream = stream;
      return this;
    }

    /**
     * Sets {@link NatsPublisherOptions#customizer()}.
     *
     * @param customizer adjusts the jnats options last, or {@code null}
     * @return this builder
     */
    public Builder customizer(Consumer<io.nats.client.Options.Builder> customizer) {
      this.customizer = customizer;
      return this;
    }

    /**
     * Checks the fields against each other and builds the options.
     *
     * @return the options
     * @throws IllegalArgumentException when more than one authentication method is set
     */
    public NatsPublisherOptions build() {
      int methods =
          (username != null ? 1 : 0) + (token != null ? 1 : 0) + (credentialsFile != null ? 1 : 0);
      if (methods > 1) {
        throw new IllegalArgumentException(
            "set one of userPassword, token or credentialsFile, but " + methods + " were set");
      }
      return new NatsPublisherOptions(this);
    }

    private static Duration positive(String field, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(field + " must be > 0, but was " + value);
      }
      return value;
    }

    private static String quote(String value) {
      return value == null ? "null" : '"' + value + '"';
    }
  }
}
