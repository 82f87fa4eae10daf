package dev.outbox;

import dev.outbox.spi.EventSerializer;
import dev.outbox.spi.HeaderProvider;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import org.slf4j.event.Level;

/**
 * Everything that tunes the outbox, set in code. An immutable value: {@link #builder()}, {@link
 * #defaults()}, {@link #toBuilder()}. Every setter checks its value at once and names the field and
 * the bad value; {@link Builder#build()} checks the fields against each other. The options come in
 * five groups, in this order below and in the builder: the tables, delivery (claims, publishing,
 * leases), failures (retries, dead letters), cleanup, and the process with its extensions.
 *
 * <pre>{@code
 * OutboxOptions options = OutboxOptions.builder()
 *     .pollInterval(Duration.ofMillis(500))
 *     .batchSize(200)
 *     .maxAttempts(5)
 *     .retention(Duration.ofDays(7))
 *     .build();
 * }</pre>
 */
public final class OutboxOptions {

  /** Default of {@link #outboxTable()}. */
  public static final String DEFAULT_OUTBOX_TABLE = "outbox_messages";

  /** Default of {@link #deadLetterTable()}. */
  public static final String DEFAULT_DEAD_LETTER_TABLE = "outbox_dead_letters";

  /** Default of {@link #pollInterval()}. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);

  /** Default of {@link #batchSize()}. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Largest accepted {@link #batchSize()}. */
  public static final int MAX_BATCH_SIZE = 10_000;

  /** Default of {@link #maxAttempts()}. */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** Default of {@link #retryPolicy()}: 1 s doubling up to 5 min, ±20 % jitter. */
  public static final RetryPolicy DEFAULT_RETRY_POLICY =
      RetryPolicy.exponential(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5)).withJitter(0.2);

  /** Default of {@link #publishTimeout()}. */
  public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);

  /** Default of {@link #leaseDuration()}. */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(60);

  /** Default of {@link #retention()}. */
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

  /** Default of {@link #cleanupInterval()}. */
  public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofMinutes(1);

  /** Default of {@link #cleanupBatchSize()}. */
  public static final int DEFAULT_CLEANUP_BATCH_SIZE = 1_000;

  /** Default of {@link #vacuumThreshold()}. */
  public static final int DEFAULT_VACUUM_THRESHOLD = 50_000;

  /** Default of {@link #shutdownTimeout()}. */
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

  /** Default of {@link #brokerProbeInterval()}. */
  public static final Duration DEFAULT_BROKER_PROBE_INTERVAL = Duration.ofMillis(500);

  /** Default of {@link #brokerOutageTolerance()}. */
  public static final Duration DEFAULT_BROKER_OUTAGE_TOLERANCE = Duration.ofMinutes(1);

  /** Built on first use: the settings records read this class's defaults when they load. */
  private static final class Defaults {
    static final OutboxOptions OPTIONS = new Builder().build();
  }

  private final TableSettings tables;
  private final DeliverySettings delivery;
  private final FailureSettings failures;
  private final CleanupSettings cleanup;
  private final DeliveryMode deliveryMode;
  private final EventSerializer serializer;
  private final String instanceId;
  private final boolean instanceIdSet;
  private final Duration shutdownTimeout;
  private final Duration brokerProbeInterval;
  private final Duration brokerOutageTolerance;
  private final List<OutboxListener> listeners;
  private final List<HeaderProvider> headerProviders;

  private OutboxOptions(Builder builder) {
    this.tables = builder.tables;
    this.delivery = builder.delivery;
    this.failures = builder.failures;
    this.cleanup = builder.cleanup;
    this.deliveryMode = builder.deliveryMode;
    this.serializer = builder.serializer;
    this.instanceId = builder.instanceId != null ? builder.instanceId : defaultInstanceId();
    this.instanceIdSet = builder.instanceIdSet;
    this.shutdownTimeout = builder.shutdownTimeout;
    this.brokerProbeInterval = builder.brokerProbeInterval;
    this.brokerOutageTolerance = builder.brokerOutageTolerance;
    this.listeners = List.copyOf(builder.listeners);
    this.headerProviders = List.copyOf(builder.headerProviders);
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
   * Options read from settings under a prefix, defaults where a key is absent. Keys are the
   * options' names in kebab-case, dotted ({@code outbox.batch-size}) or in environment form ({@code
   * OUTBOX_BATCH_SIZE}); durations as {@code 500ms}, {@code 5s}, {@code 2m} or ISO-8601. The retry
   * policy is read as {@code retry-initial-delay}, {@code retry-multiplier}, {@code
   * retry-max-delay} and {@code retry-jitter}. The adapters' sections ({@code outbox.kafka.*} ...)
   * are left to them; any other unknown key under the prefix is an error that lists the known keys.
   * What is code (serializer, listeners, header providers) is set on {@link Builder#bind(Map,
   * String) a builder}.
   *
   * @param values the settings, for example {@code System.getenv()}
   * @param prefix the prefix, for example {@code outbox} or {@code OUTBOX_}
   * @return the options
   * @throws IllegalArgumentException naming the key of an unknown option or a bad value
   */
  public static OutboxOptions fromMap(Map<String, String> values, String prefix) {
    return builder().bind(values, prefix).build();
  }

  /**
   * The same from properties.
   *
   * @param properties the properties
   * @param prefix the prefix, for example {@code outbox}
   * @return the options
   * @throws IllegalArgumentException naming the key of an unknown option or a bad value
   * @see #fromMap(Map, String)
   */
  public static OutboxOptions fromProperties(Properties properties, String prefix) {
    return builder().bind(properties, prefix).build();
  }

  /**
   * The keys {@link #fromMap} reads under a prefix, in dotted form.
   *
   * @param prefix the prefix, for example {@code outbox}
   * @return the keys, for example {@code outbox.batch-size}
   */
  public static List<String> keys(String prefix) {
    return OutboxOptionsKeys.BINDER.keys(prefix);
  }

  /**
   * The options with every default.
   *
   * @return the default options
   */
  public static OutboxOptions defaults() {
    return Defaults.OPTIONS;
  }

  /**
   * A builder holding these options, to derive changed ones.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  // Tables

  /**
   * The append-only table holding the messages, pending and delivered.
   *
   * @return default {@value #DEFAULT_OUTBOX_TABLE}
   */
  public String outboxTable() {
    return tables.outboxTable();
  }

  /**
   * The table holding one head per aggregate (write sequence, delivery cursor, lease), named after
   * {@link #outboxTable()}: a trailing {@code _messages} becomes {@code _heads}, any other name
   * gets {@code _heads} appended.
   *
   * @return default {@code outbox_heads}
   */
  public String headTable() {
    return tables.headTable();
  }

  /**
   * The view of delivered messages (those at or before their head's cursor), for operators and
   * tests, named like {@link #headTable()} with {@code _published}.
   *
   * @return default {@code outbox_published}
   */
  public String publishedView() {
    return tables.publishedView();
  }

  /**
   * The table holding dead letters.
   *
   * @return default {@value #DEFAULT_DEAD_LETTER_TABLE}
   */
  public String deadLetterTable() {
    return tables.deadLetterTable();
  }

  /**
   * Whether the tables are created at start when missing. Meant for development and tests;
   * production runs the shipped migration files with its migration tool.
   *
   * @return default {@code false}: a missing table fails the start with a message saying how to
   *     create it
   */
  public boolean createSchema() {
    return tables.createSchema();
  }

  // Delivery: claims, publishing, leases

  /**
   * Who carries the messages to the broker: the outbox's processor, or Debezium reading the
   * database's log (then {@link Outbox#start()} runs cleanup by age only).
   *
   * @return default {@link DeliveryMode#POLLING}
   */
  public DeliveryMode deliveryMode() {
    return deliveryMode;
  }

  /**
   * How long the processor waits for new messages when a batch came back short and no commit woke
   * it.
   *
   * @return default 500 ms
   */
  public Duration pollInterval() {
    return delivery.pollInterval();
  }

  /**
   * How many messages one claim takes and one publish call sends.
   *
   * @return default {@value #DEFAULT_BATCH_SIZE}
   */
  public int batchSize() {
    return delivery.batchSize();
  }

  /**
   * How long one publish call may take before its batch counts as a retryable failure.
   *
   * @return default 30 s
   */
  public Duration publishTimeout() {
    return delivery.publishTimeout();
  }

  /**
   * How long a claim protects messages from other instances. Longer than {@link #publishTimeout()},
   * so that a live instance never loses a claim it is still working on; a crashed instance's
   * messages are taken over once it runs out.
   *
   * @return default 60 s
   */
  public Duration leaseDuration() {
    return delivery.leaseDuration();
  }

  /**
   * Whether message n+1 of an aggregate waits until message n is published or dead-lettered.
   *
   * @return default {@code true}
   */
  public boolean orderedPerAggregate() {
    return delivery.orderedPerAggregate();
  }

  /**
   * Whether a running processor takes the fast path: when a flush writes the first event of an
   * aggregate that has no unpublished message, it writes it already leased to the processor of this
   * JVM, and after the commit the processor publishes it from memory, with no claim in between
   * (commit to broker ack is one broker round trip). Other rows, rows of a JVM that dies and
   * failures go the claimed way. Not used on MariaDB/MySQL, whose repeatable-read snapshots cannot
   * see a concurrent transaction's earlier message without locking.
   *
   * @return default {@code true}
   */
  public boolean leaseOnWrite() {
    return delivery.leaseOnWrite();
  }

  // Failures: retries and dead letters

  /**
   * How many attempts a message gets before it moves to the dead letters.
   *
   * @return default {@value #DEFAULT_MAX_ATTEMPTS}
   */
  public int maxAttempts() {
    return failures.maxAttempts();
  }

  /**
   * The backoff between attempts.
   *
   * @return default {@link #DEFAULT_RETRY_POLICY}
   */
  public RetryPolicy retryPolicy() {
    return failures.retryPolicy();
  }

  /**
   * Whether a dead-lettered message holds back the rest of its aggregate until it is replayed or
   * purged.
   *
   * @return default {@code false}: the aggregate goes on with its next message
   */
  public boolean holdAggregateOnDeadLetter() {
    return failures.holdAggregateOnDeadLetter();
  }

  /**
   * The level at which a batch with failures that will be retried is logged. Dead letters are
   * always logged at error.
   *
   * @return default {@link Level#WARN}
   */
  public Level failureLogLevel() {
    return failures.failureLogLevel();
  }

  // Cleanup and table upkeep

  /**
   * How long published messages are kept before cleanup deletes them.
   *
   * @return default 7 days; zero deletes them as soon as cleanup runs
   */
  public Duration retention() {
    return cleanup.retention();
  }

  /**
   * How often cleanup runs.
   *
   * @return default 1 min
   */
  public Duration cleanupInterval() {
    return cleanup.cleanupInterval();
  }

  /**
   * How many rows one cleanup statement deletes at most.
   *
   * @return default {@value #DEFAULT_CLEANUP_BATCH_SIZE}
   */
  public int cleanupBatchSize() {
    return cleanup.cleanupBatchSize();
  }

  /**
   * PostgreSQL: after how many row changes (rows claimed, outcomes recorded, rows deleted) the
   * store vacuums the outbox table itself, on a thread of its own and one vacuum at a time; 0
   * leaves the table to autovacuum alone. Every change leaves a dead row version in the pending
   * indexes, and each claim and each write of the fast path walks past those until a vacuum removes
   * them. Autovacuum may be off, and on a large table it is throttled well below the rate at which
   * the outbox changes rows. Needs the table's owner; other databases ignore it.
   *
   * @return default {@value #DEFAULT_VACUUM_THRESHOLD}
   */
  public int vacuumThreshold() {
    return cleanup.vacuumThreshold();
  }

  // The process and its extensions

  /**
   * The serializer that turns events into payloads.
   *
   * @return empty by default, which means the persistence adapter's Jackson serializer
   */
  public Optional<EventSerializer> serializer() {
    return Optional.ofNullable(serializer);
  }

  /**
   * The name this processor stamps on its claims and leases, and that starts its log lines and
   * thread names. No two outboxes running in one JVM (started and not closed) run under one id: a
   * default id (one per options object, so shared by every outbox built on these options) that an
   * outbox of this JVM already runs under is taken with a suffix ({@code -2}, {@code -3}, ...) by
   * the outbox that starts second, which logs it; so is an id {@linkplain
   * Builder#instanceId(String) set}, with a warning. A closed outbox frees its id. The id an outbox
   * runs under is {@link OutboxHealth#instanceId()}.
   *
   * @return default {@code <host>-<pid>-<random>}, generated once per options object
   */
  public String instanceId() {
    return instanceId;
  }

  /**
   * Whether {@link #instanceId()} was set rather than generated, kept by {@link #toBuilder()}; the
   * engine reads it through {@link Outbox#create}.
   */
  boolean instanceIdSet() {
    return instanceIdSet;
  }

  /**
   * How long {@code close()} waits for the batch in flight.
   *
   * @return default 10 s
   */
  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * How often the processor tries one message while the broker is unavailable. A failure of the
   * broker or the connection ({@link PublishException#isBrokerFault()}) counts no attempt against
   * any message; the processor stops sending, and publishes one due message at this interval until
   * the broker takes it (or refuses it for the message's own fault), then sends everything at once.
   *
   * @return default 500 ms
   */
  public Duration brokerProbeInterval() {
    return brokerProbeInterval;
  }

  /**
   * How long a broker outage lasts before {@link Outbox#health()} reports the outbox unhealthy.
   * Shorter outages only show in the health's details and the outage log lines: the messages wait
   * in the outbox, nothing is lost.
   *
   * @return default 1 min
   */
  public Duration brokerOutageTolerance() {
    return brokerOutageTolerance;
  }

  /**
   * The listeners told about every publish, failure, dead letter, replay, cleanup and batch.
   *
   * @return default none
   */
  public List<OutboxListener> listeners() {
    return listeners;
  }

  /**
   * The providers of headers added to every event when it is written (trace context, correlation
   * ids). The persistence adapter adds the W3C trace context from OpenTelemetry itself when the
   * OpenTelemetry API is on the classpath.
   *
   * @return default none
   */
  public List<HeaderProvider> headerProviders() {
    return headerProviders;
  }

  @Override
  public String toString() {
    return "OutboxOptions["
        + tables
        + ", "
        + delivery
        + ", deliveryMode="
        + deliveryMode
        + ", "
        + failures
        + ", "
        + cleanup
        + ", serializer="
        + (serializer == null ? "default" : serializer.getClass().getName())
        + ", instanceId="
        + instanceId
        + ", shutdownTimeout="
        + shutdownTimeout
        + ", brokerProbeInterval="
        + brokerProbeInterval
        + ", brokerOutageTolerance="
        + brokerOutageTolerance
        + ", listeners="
        + listeners.size()
        + ", headerProviders="
        + headerProviders.size()
        + ']';
  }

  private static String defaultInstanceId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException | RuntimeException e) {
      host = "host";
    }
    long pid = ManagementFactory.getRuntimeMXBean().getPid();
    String random = UUID.randomUUID().toString().substring(0, 8);
    String id = host + '-' + pid + '-' + random;
    return id.length() <= 100 ? id : id.substring(id.length() - 100);
  }

  /** Builds {@link OutboxOptions}; every setter validates its argument. */
  public static final class Builder {
    /** The longest {@link #publishTimeout(Duration)}, in minutes. */
    public static final int MAX_PUBLISH_TIMEOUT_MINUTES = 10;

    /** The longest {@link #leaseDuration(Duration)}, in hours. */
    public static final int MAX_LEASE_HOURS = 1;

    private TableSettings tables = TableSettings.DEFAULTS;
    private DeliverySettings delivery = DeliverySettings.DEFAULTS;
    private FailureSettings failures = FailureSettings.DEFAULTS;
    private CleanupSettings cleanup = CleanupSettings.DEFAULTS;
    private DeliveryMode deliveryMode = DeliveryMode.POLLING;
    private EventSerializer serializer;
    private String instanceId;
    private boolean instanceIdSet;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private Duration brokerProbeInterval = DEFAULT_BROKER_PROBE_INTERVAL;
    private Duration brokerOutageTolerance = DEFAULT_BROKER_OUTAGE_TOLERANCE;
    private final List<OutboxListener> listeners = new ArrayList<>();
    private final List<HeaderProvider> headerProviders = new ArrayList<>();

    private Builder() {}

    private Builder(OutboxOptions options) {
      tables = options.tables;
      delivery = options.delivery;
      failures = options.failures;
      cleanup = options.cleanup;
      deliveryMode = options.deliveryMode;
      serializer = options.serializer;
      instanceId = options.instanceId;
      instanceIdSet = options.instanceIdSet;
      shutdownTimeout = options.shutdownTimeout;
      brokerProbeInterval = options.brokerProbeInterval;
      brokerOutageTolerance = options.brokerOutageTolerance;
      listeners.addAll(options.listeners);
      headerProviders.addAll(options.headerProviders);
    }

    /**
     * Sets every option the settings hold under the prefix: see {@link OutboxOptions#fromMap}.
     *
     * @param values the settings, for example {@code System.getenv()}
     * @param prefix the prefix, for example {@code outbox} or {@code OUTBOX_}
     * @return this builder
     * @throws IllegalArgumentException naming the key of an unknown option or a bad value
     */
    public Builder bind(Map<String, String> values, String prefix) {
      return OutboxOptionsKeys.BINDER
          .bind(values, prefix, new OutboxOptionsKeys.Target(this))
          .finish();
    }

    /**
     * Sets every option the properties hold under the prefix: see {@link OutboxOptions#fromMap}.
     *
     * @param properties the properties
     * @param prefix the prefix, for example {@code outbox}
     * @return this builder
     * @throws IllegalArgumentException naming the key of an unknown option or a bad value
     */
    public Builder bind(Properties properties, String prefix) {
      return OutboxOptionsKeys.BINDER
          .bind(properties, prefix, new OutboxOptionsKeys.Target(this))
          .finish();
    }

    /** The retry policy set so far, for the keys that change a part of it. */
    RetryPolicy currentRetryPolicy() {
      return failures.retryPolicy();
    }

    // Tables

    /**
     * Sets {@link OutboxOptions#outboxTable()}.
     *
     * @param name a plain SQL identifier of at most 40 characters, optionally qualified by a schema
     *     ({@code schema.table})
     * @return this builder
     */
    public Builder outboxTable(String name) {
      tables = tables.withOutboxTable(name);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#deadLetterTable()}.
     *
     * @param name a plain SQL identifier of at most 40 characters, optionally qualified by a schema
     *     ({@code schema.table})
     * @return this builder
     */
    public Builder deadLetterTable(String name) {
      tables = tables.withDeadLetterTable(name);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#createSchema()}.
     *
     * @param createSchema whether to create missing tables at start
     * @return this builder
     */
    public Builder createSchema(boolean createSchema) {
      tables = tables.withCreateSchema(createSchema);
      return this;
    }

    // Delivery: claims, publishing, leases

    /**
     * Sets {@link OutboxOptions#deliveryMode()}.
     *
     * @param mode not null
     * @return this builder
     */
    public Builder deliveryMode(DeliveryMode mode) {
      this.deliveryMode = OptionChecks.notNull("deliveryMode", mode);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#pollInterval()}.
     *
     * @param interval &gt; 0
     * @return this builder
     */
    public Builder pollInterval(Duration interval) {
      delivery = delivery.withPollInterval(interval);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#batchSize()}.
     *
     * @param size between 1 and {@value OutboxOptions#MAX_BATCH_SIZE}
     * @return this builder
     */
    public Builder batchSize(int size) {
      delivery = delivery.withBatchSize(size);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#publishTimeout()}.
     *
     * @param timeout &gt; 0, at most {@value #MAX_PUBLISH_TIMEOUT_MINUTES} minutes, and shorter
     *     than the lease
     * @return this builder
     */
    public Builder publishTimeout(Duration timeout) {
      delivery = delivery.withPublishTimeout(timeout);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#leaseDuration()}.
     *
     * @param lease longer than the publish timeout, at most {@value #MAX_LEASE_HOURS} hour(s)
     * @return this builder
     */
    public Builder leaseDuration(Duration lease) {
      delivery = delivery.withLeaseDuration(lease);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#orderedPerAggregate()}.
     *
     * @param ordered whether to keep per-aggregate order
     * @return this builder
     */
    public Builder orderedPerAggregate(boolean ordered) {
      delivery = delivery.withOrderedPerAggregate(ordered);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#leaseOnWrite()}.
     *
     * @param enabled whether a running processor publishes the rows its JVM commits from memory
     * @return this builder
     */
    public Builder leaseOnWrite(boolean enabled) {
      delivery = delivery.withLeaseOnWrite(enabled);
      return this;
    }

    // Failures: retries and dead letters

    /**
     * Sets {@link OutboxOptions#maxAttempts()}.
     *
     * @param attempts &ge; 1
     * @return this builder
     */
    public Builder maxAttempts(int attempts) {
      failures = failures.withMaxAttempts(attempts);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#retryPolicy()}.
     *
     * @param policy not null
     * @return this builder
     */
    public Builder retryPolicy(RetryPolicy policy) {
      failures = failures.withRetryPolicy(policy);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#holdAggregateOnDeadLetter()}.
     *
     * @param hold whether a dead letter holds back its aggregate
     * @return this builder
     */
    public Builder holdAggregateOnDeadLetter(boolean hold) {
      failures = failures.withHoldAggregateOnDeadLetter(hold);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#failureLogLevel()}.
     *
     * @param level not null
     * @return this builder
     */
    public Builder failureLogLevel(Level level) {
      failures = failures.withFailureLogLevel(level);
      return this;
    }

    // Cleanup and table upkeep

    /**
     * Sets {@link OutboxOptions#retention()}.
     *
     * @param retention &ge; 0
     * @return this builder
     */
    public Builder retention(Duration retention) {
      cleanup = cleanup.withRetention(retention);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#cleanupInterval()}.
     *
     * @param interval &gt; 0
     * @return this builder
     */
    public Builder cleanupInterval(Duration interval) {
      cleanup = cleanup.withCleanupInterval(interval);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#cleanupBatchSize()}.
     *
     * @param size between 1 and 1,000,000
     * @return this builder
     */
    public Builder cleanupBatchSize(int size) {
      cleanup = cleanup.withCleanupBatchSize(size);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#vacuumThreshold()}.
     *
     * @param rows between 0 (off) and 1,000,000,000
     * @return this builder
     */
    public Builder vacuumThreshold(int rows) {
      cleanup = cleanup.withVacuumThreshold(rows);
      return this;
    }

    // The process and its extensions

    /**
     * Sets {@link OutboxOptions#serializer()}.
     *
     * @param serializer the serializer, or {@code null} for the default
     * @return this builder
     */
    public Builder serializer(EventSerializer serializer) {
      this.serializer = serializer;
      return this;
    }

    /**
     * Sets {@link OutboxOptions#instanceId()}. Each outbox needs one of its own: among the
     * processors sharing a table, and among the outboxes running in this JVM, where an outbox that
     * starts under an id set here that a running outbox already holds runs under it with a suffix
     * ({@code -2}) and warns. Left unset, the id is generated, and a second outbox running on the
     * same options takes it with a suffix.
     *
     * @param id non-blank, at most 100 characters, unique among the processors sharing a table
     * @return this builder
     */
    public Builder instanceId(String id) {
      if (id == null || id.isBlank() || id.length() > 100) {
        throw new IllegalArgumentException(
            "instanceId must be non-blank and at most 100 characters, but was "
                + (id == null ? "null" : '"' + id + '"'));
      }
      this.instanceId = id;
      this.instanceIdSet = true;
      return this;
    }

    /**
     * Sets {@link OutboxOptions#shutdownTimeout()}.
     *
     * @param timeout &ge; 0
     * @return this builder
     */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = OptionChecks.notNegative("shutdownTimeout", timeout);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#brokerProbeInterval()}.
     *
     * @param interval &gt; 0
     * @return this builder
     */
    public Builder brokerProbeInterval(Duration interval) {
      this.brokerProbeInterval = OptionChecks.positive("brokerProbeInterval", interval);
      return this;
    }

    /**
     * Sets {@link OutboxOptions#brokerOutageTolerance()}.
     *
     * @param tolerance &ge; 0; zero reports any broker outage as unhealthy at once
     * @return this builder
     */
    public Builder brokerOutageTolerance(Duration tolerance) {
      this.brokerOutageTolerance = OptionChecks.notNegative("brokerOutageTolerance", tolerance);
      return this;
    }

    /**
     * Adds a listener to {@link OutboxOptions#listeners()}.
     *
     * @param listener not null
     * @return this builder
     */
    public Builder listener(OutboxListener listener) {
      listeners.add(OptionChecks.notNull("listener", listener));
      return this;
    }

    /**
     * Adds a provider to {@link OutboxOptions#headerProviders()}.
     *
     * @param provider not null
     * @return this builder
     */
    public Builder headerProvider(HeaderProvider provider) {
      headerProviders.add(OptionChecks.notNull("headerProvider", provider));
      return this;
    }

    /**
     * Checks the fields against each other and builds the options.
     *
     * @return the options
     * @throws IllegalArgumentException naming the fields that do not fit together
     */
    public OutboxOptions build() {
      delivery.checkTogether();
      tables.checkTogether();
      return new OutboxOptions(this);
    }
  }
}
