package dev.outbox.inbox;

import dev.outbox.spi.OptionText;
import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Everything that tunes an {@link Inbox}. An immutable value: {@link #builder()}, {@link
 * #toBuilder()}. Every setter checks its value at once and names the field and the bad value;
 * {@link Builder#build()} checks that the source is set and the two tables differ.
 *
 * <pre>{@code
 * InboxOptions options = InboxOptions.builder()
 *     .source("billing")
 *     .gapPolicy(GapPolicy.WAIT)
 *     .positionRetention(Duration.ofDays(30))
 *     .build();
 * }</pre>
 */
public final class InboxOptions {

  /** Default of {@link #positionsTable()}. */
  public static final String DEFAULT_POSITIONS_TABLE = "inbox_positions";

  /** Default of {@link #receivedIdsTable()}. */
  public static final String DEFAULT_RECEIVED_IDS_TABLE = "inbox_received_ids";

  /** Default of {@link #gapPolicy()}. */
  public static final GapPolicy DEFAULT_GAP_POLICY = GapPolicy.WAIT;

  /** Default of {@link #positionRetention()}. */
  public static final Duration DEFAULT_POSITION_RETENTION = Duration.ofDays(30);

  /** Default of {@link #idRetention()}. */
  public static final Duration DEFAULT_ID_RETENTION = Duration.ofDays(7);

  /** Default of {@link #cleanupInterval()}. */
  public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofMinutes(1);

  /** Default of {@link #cleanupBatchSize()}. */
  public static final int DEFAULT_CLEANUP_BATCH_SIZE = 1_000;

  /** Largest accepted {@link #cleanupBatchSize()}. */
  public static final int MAX_CLEANUP_BATCH_SIZE = 10_000;

  /** Longest {@link #source()}: the width of the tables' {@code source} column. */
  public static final int MAX_SOURCE_LENGTH = 100;

  /**
   * A table name: at most 40 characters, so that the index named after it ({@code
   * ix_<table>_received}) fits PostgreSQL's 63.
   */
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,39}");

  private final String source;
  private final String positionsTable;
  private final String receivedIdsTable;
  private final GapPolicy gapPolicy;
  private final Duration positionRetention;
  private final Duration idRetention;
  private final Duration cleanupInterval;
  private final int cleanupBatchSize;
  private final boolean createSchema;
  private final List<InboxListener> listeners;

  private InboxOptions(Builder builder) {
    this.source = builder.source;
    this.positionsTable = builder.positionsTable;
    this.receivedIdsTable = builder.receivedIdsTable;
    this.gapPolicy = builder.gapPolicy;
    this.positionRetention = builder.positionRetention;
    this.idRetention = builder.idRetention;
    this.cleanupInterval = builder.cleanupInterval;
    this.cleanupBatchSize = builder.cleanupBatchSize;
    this.createSchema = builder.createSchema;
    this.listeners = List.copyOf(builder.listeners);
  }

  /** The keys of {@link #fromMap}: the one key grammar of every module ({@link OptionsBinder}). */
  private static final OptionsBinder<Builder> BINDER =
      OptionsBinder.<Builder>of("Inbox")
          .string("source", Builder::source)
          .string("positions-table", Builder::positionsTable)
          .string("received-ids-table", Builder::receivedIdsTable)
          .enumeration("gap-policy", GapPolicy.class, Builder::gapPolicy)
          .duration("position-retention", Builder::positionRetention)
          .duration("id-retention", Builder::idRetention)
          .duration("cleanup-interval", Builder::cleanupInterval)
          .integer("cleanup-batch-size", Builder::cleanupBatchSize)
          .bool("create-schema", Builder::createSchema);

  /**
   * Options from key/value settings under a prefix, in the grammar of every outbox module: {@code
   * outbox.inbox.source=billing}, {@code outbox.inbox.gap-policy=apply}, {@code
   * outbox.inbox.position-retention=30d}, or their environment form ({@code OUTBOX_INBOX_SOURCE}).
   * Unset keys keep their defaults; listeners are set in code.
   *
   * @param values the settings, for example {@code System.getenv()}
   * @param prefix the prefix, dotted or in environment form, for example {@code outbox.inbox}
   * @return the options
   * @throws IllegalArgumentException naming an unknown key below the prefix, or a bad value
   */
  public static InboxOptions fromMap(Map<String, String> values, String prefix) {
    return BINDER.bind(values, prefix, builder()).build();
  }

  /**
   * Options from properties under a prefix, as {@link #fromMap} reads them.
   *
   * @param properties the properties, for example a file's
   * @param prefix the prefix, for example {@code outbox.inbox}
   * @return the options
   * @throws IllegalArgumentException naming an unknown key below the prefix, or a bad value
   */
  public static InboxOptions fromProperties(Properties properties, String prefix) {
    return BINDER.bind(properties, prefix, builder()).build();
  }

  /**
   * Every key {@link #fromMap} reads under a prefix, for documentation and for checks of unknown
   * keys.
   *
   * @param prefix the prefix in dotted form, for example {@code outbox.inbox}
   * @return the keys, for example {@code outbox.inbox.source}
   */
  public static List<String> keys(String prefix) {
    return BINDER.keys(prefix);
  }

  /**
   * A builder with every default; {@link Builder#source(String)} must be set.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder holding these options, to change some of them.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.source = source;
    builder.positionsTable = positionsTable;
    builder.receivedIdsTable = receivedIdsTable;
    builder.gapPolicy = gapPolicy;
    builder.positionRetention = positionRetention;
    builder.idRetention = idRetention;
    builder.cleanupInterval = cleanupInterval;
    builder.cleanupBatchSize = cleanupBatchSize;
    builder.createSchema = createSchema;
    builder.listeners.addAll(listeners);
    return builder;
  }

  /**
   * The consumer's name: each source has its own positions, so several consumers of the same
   * messages share the tables. Required, no default; at most {@value #MAX_SOURCE_LENGTH}
   * characters.
   *
   * @return the source
   */
  public String source() {
    return source;
  }

  /**
   * The table of positions, one row per (source, aggregate). Default {@value
   * #DEFAULT_POSITIONS_TABLE}.
   *
   * @return the table name, optionally schema-qualified
   */
  public String positionsTable() {
    return positionsTable;
  }

  /**
   * The table of the ids of messages without seq, one row per (source, message id). Default {@value
   * #DEFAULT_RECEIVED_IDS_TABLE}.
   *
   * @return the table name, optionally schema-qualified
   */
  public String receivedIdsTable() {
    return receivedIdsTable;
  }

  /**
   * What to do with a message that comes before messages it follows. Default {@link
   * GapPolicy#WAIT}.
   *
   * @return the gap policy
   */
  public GapPolicy gapPolicy() {
    return gapPolicy;
  }

  /**
   * How long a position stays after its last message before the cleanup deletes it (a position with
   * a gap open stays). A deleted position counts as "nothing applied": the aggregate's next
   * message, unless it is the first of a stream, is then a gap. So this must exceed the producer's
   * outbox retention ({@code OutboxOptions.retention()}), after which the producer deletes the
   * aggregate's head and begins a new stream. Default 30 days.
   *
   * @return the retention
   */
  public Duration positionRetention() {
    return positionRetention;
  }

  /**
   * How long the id of a message without seq is kept for de-duplication: longer than the broker can
   * redeliver a message. Default 7 days.
   *
   * @return the retention
   */
  public Duration idRetention() {
    return idRetention;
  }

  /**
   * How often {@link Inbox#start()} runs the cleanup. Default 1 minute.
   *
   * @return the interval
   */
  public Duration cleanupInterval() {
    return cleanupInterval;
  }

  /**
   * How many rows one delete of the cleanup removes at most. Default {@value
   * #DEFAULT_CLEANUP_BATCH_SIZE}.
   *
   * @return the batch size
   */
  public int cleanupBatchSize() {
    return cleanupBatchSize;
  }

  /**
   * Whether {@link Inbox#create} creates missing tables from the shipped migration: for development
   * and tests; in production run {@code db/inbox/<database>/V1__inbox_tables.sql} with your
   * migration tool. Default {@code false}.
   *
   * @return whether to create the tables
   */
  public boolean createSchema() {
    return createSchema;
  }

  /**
   * The listeners told of every outcome, in order. Default none.
   *
   * @return an unmodifiable list
   */
  public List<InboxListener> listeners() {
    return listeners;
  }

  @Override
  public String toString() {
    return "InboxOptions[source="
        + source
        + ", positionsTable="
        + positionsTable
        + ", receivedIdsTable="
        + receivedIdsTable
        + ", gapPolicy="
        + gapPolicy
        + ", positionRetention="
        + positionRetention
        + ", idRetention="
        + idRetention
        + ", cleanupInterval="
        + cleanupInterval
        + ", cleanupBatchSize="
        + cleanupBatchSize
        + ", createSchema="
        + createSchema
        + ", listeners="
        + listeners.size()
        + ']';
  }

  /** Builds {@link InboxOptions}; every setter checks its value at once. */
  public static final class Builder {

    private String source;
    private String positionsTable = DEFAULT_POSITIONS_TABLE;
    private String receivedIdsTable = DEFAULT_RECEIVED_IDS_TABLE;
    private GapPolicy gapPolicy = DEFAULT_GAP_POLICY;
    private Duration positionRetention = DEFAULT_POSITION_RETENTION;
    private Duration idRetention = DEFAULT_ID_RETENTION;
    private Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;
    private int cleanupBatchSize = DEFAULT_CLEANUP_BATCH_SIZE;
    private boolean createSchema;
    private final List<InboxListener> listeners = new ArrayList<>();

    private Builder() {}

    /**
     * Sets {@link InboxOptions#source()}.
     *
     * @param source the consumer's name, not blank, at most {@value #MAX_SOURCE_LENGTH} characters
     * @return this builder
     */
    public Builder source(String source) {
      OptionText.requireText("source", source);
      if (source.length() > MAX_SOURCE_LENGTH) {
        throw new IllegalArgumentException(
            "source must be at most "
                + MAX_SOURCE_LENGTH
                + " characters (the width of the tables' source column), but was "
                + source.length()
                + " characters: "
                + OptionText.quote(source));
      }
      this.source = source;
      return this;
    }

    /**
     * Sets {@link InboxOptions#positionsTable()}.
     *
     * @param table a plain SQL identifier, optionally schema-qualified
     * @return this builder
     */
    public Builder positionsTable(String table) {
      this.positionsTable = tableName("positionsTable", table);
      return this;
    }

    /**
     * Sets {@link InboxOptions#receivedIdsTable()}.
     *
     * @param table a plain SQL identifier, optionally schema-qualified
     * @return this builder
     */
    public Builder receivedIdsTable(String table) {
      this.receivedIdsTable = tableName("receivedIdsTable", table);
      return this;
    }

    /**
     * Sets {@link InboxOptions#gapPolicy()}.
     *
     * @param policy the policy, not null
     * @return this builder
     */
    public Builder gapPolicy(GapPolicy policy) {
      if (policy == null) {
        throw new IllegalArgumentException(
            "gapPolicy must not be null; use GapPolicy.WAIT (the default), APPLY or FAIL");
      }
      this.gapPolicy = policy;
      return this;
    }

    /**
     * Sets {@link InboxOptions#positionRetention()}.
     *
     * @param retention more than zero; longer than the producer's outbox retention
     * @return this builder
     */
    public Builder positionRetention(Duration retention) {
      this.positionRetention = positive("positionRetention", retention);
      return this;
    }

    /**
     * Sets {@link InboxOptions#idRetention()}.
     *
     * @param retention more than zero
     * @return this builder
     */
    public Builder idRetention(Duration retention) {
      this.idRetention = positive("idRetention", retention);
      return this;
    }

    /**
     * Sets {@link InboxOptions#cleanupInterval()}.
     *
     * @param interval more than zero
     * @return this builder
     */
    public Builder cleanupInterval(Duration interval) {
      this.cleanupInterval = positive("cleanupInterval", interval);
      return this;
    }

    /**
     * Sets {@link InboxOptions#cleanupBatchSize()}.
     *
     * @param size between 1 and {@value #MAX_CLEANUP_BATCH_SIZE}
     * @return this builder
     */
    public Builder cleanupBatchSize(int size) {
      if (size < 1 || size > MAX_CLEANUP_BATCH_SIZE) {
        throw new IllegalArgumentException(
            "cleanupBatchSize must be between 1 and "
                + MAX_CLEANUP_BATCH_SIZE
                + ", but was "
                + size);
      }
      this.cleanupBatchSize = size;
      return this;
    }

    /**
     * Sets {@link InboxOptions#createSchema()}.
     *
     * @param create whether to create missing tables at start
     * @return this builder
     */
    public Builder createSchema(boolean create) {
      this.createSchema = create;
      return this;
    }

    /**
     * Adds a listener to {@link InboxOptions#listeners()}.
     *
     * @param listener the listener, not null
     * @return this builder
     */
    public Builder listener(InboxListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      listeners.add(listener);
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the options
     * @throws IllegalArgumentException when the source is not set or both tables have one name
     */
    public InboxOptions build() {
      if (source == null) {
        throw new IllegalArgumentException(
            "source must be set: the consumer's name, which keeps its positions apart from other"
                + " consumers' (InboxOptions.builder().source(\"billing\"))");
      }
      if (positionsTable.equalsIgnoreCase(receivedIdsTable)) {
        throw new IllegalArgumentException(
            "receivedIdsTable must differ from positionsTable, but both were " + positionsTable);
      }
      return new InboxOptions(this);
    }

    private static Duration positive(String field, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(field + " must be > 0, but was " + value);
      }
      return value;
    }

    private static String tableName(String field, String name) {
      int dot = name == null ? -1 : name.indexOf('.');
      boolean valid =
          name != null
              && (dot < 0
                  ? IDENTIFIER.matcher(name).matches()
                  : IDENTIFIER.matcher(name.substring(0, dot)).matches()
                      && IDENTIFIER.matcher(name.substring(dot + 1)).matches());
      if (!valid) {
        throw new IllegalArgumentException(
            field
                + " must be a plain SQL identifier (letters, digits and _, not starting with a"
                + " digit; at most 40 characters; optionally schema.table), but was "
                + OptionText.quote(name));
      }
      return name;
    }
  }
}
