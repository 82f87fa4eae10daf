package dev.outbox.jdbc;

import dev.outbox.DeliveryMode;
import dev.outbox.DomainEvent;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxOptions;
import dev.outbox.jdbc.internal.Dialect;
import dev.outbox.jdbc.internal.EventRows;
import dev.outbox.jdbc.internal.FlushWriter;
import dev.outbox.jdbc.internal.JdbcOutboxStore;
import dev.outbox.jdbc.internal.PendingRows;
import dev.outbox.jdbc.internal.SchemaManager;
import dev.outbox.jdbc.internal.TraceContext;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.EventSerializer;
import dev.outbox.spi.HeaderProvider;
import dev.outbox.spi.LocalCommitHandOver;
import dev.outbox.spi.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The outbox on one database reached through a {@link DataSource}, without an ORM: sends events in
 * the application's own JDBC transactions (plain JDBC, Spring's {@code JdbcTemplate}, jOOQ), and
 * runs the processor that delivers them. One per database and set of tables; thread-safe.
 *
 * <pre>{@code
 * JdbcOutbox jdbcOutbox = JdbcOutbox.create(dataSource, OutboxOptions.defaults());
 * Outbox outbox = jdbcOutbox.outbox(publisher);
 * outbox.start();
 *
 * jdbcOutbox.inTransaction(connection -> {
 *   insertPayment(connection, paymentId, amount);
 *   jdbcOutbox.send(connection, "Payment", paymentId, new PaymentRequested(orderId, amount));
 *   return null;
 * });
 * }</pre>
 *
 * <p>Each event gets the next gap-free {@code seq} of its aggregate when it is written; the
 * aggregate's head row stays locked until the transaction ends, which orders the writers of one
 * aggregate. A rollback takes the events back. After a commit that {@link TransactionObserver} (or
 * {@link #inTransaction}) sees, the processor of this JVM is handed the messages at once; otherwise
 * it finds them at its next poll, or at once after {@link #committed()}.
 *
 * <p>With the OpenTelemetry API on the classpath, each row stores the W3C trace context ({@code
 * traceparent}, {@code tracestate}) of the span active at the send, and the processor of {@link
 * #outbox(EventPublisher)} opens a PRODUCER span per message under it, as on the Hibernate path;
 * {@link Builder#traceContext(boolean)} turns both off.
 */
public final class JdbcOutbox {

  /** The publisher of CDC mode, where the connector delivers and nothing may call it. */
  private static final EventPublisher CONNECTOR_DELIVERS =
      (messages, timeout) -> {
        throw new IllegalStateException(
            "In CDC mode the connector reading the database's log publishes, not the outbox");
      };

  private static final String SEND_FAILED =
      "Nothing was written; the transaction should roll back.";

  private final DataSource dataSource;
  private final Dialect dialect;
  private final OutboxOptions options;
  private final LocalCommitHandOver handOver = new LocalCommitHandOver();
  private final JdbcOutboxStore store;
  private final EventRows rows;
  private final FlushWriter writer;
  private final TransactionObserver observer;
  private final LocalTransactions local = new LocalTransactions();
  private final TraceContext trace;

  private JdbcOutbox(Builder builder, Dialect dialect) {
    this.dataSource = builder.dataSource;
    this.dialect = dialect;
    this.options = builder.options;
    this.store = new JdbcOutboxStore(dataSource, dialect, options, handOver);
    this.trace =
        builder.traceContext ? TraceContext.detect(builder.openTelemetry) : TraceContext.off();
    // The trace context first: the application's providers, then the event, may override it.
    List<HeaderProvider> providers = new ArrayList<>();
    trace.headerProvider().ifPresent(providers::add);
    providers.addAll(builder.headerProviders);
    providers.addAll(options.headerProviders());
    this.rows = new EventRows(serializer(options), providers, builder.clock);
    this.writer = new FlushWriter(dialect);
    this.observer = builder.observer;
  }

  /**
   * The outbox on a data source with the given options; checks the tables (and creates them when
   * {@link OutboxOptions#createSchema()} says so).
   *
   * @param dataSource the database with the business data and the outbox tables
   * @param options the options
   * @return the outbox
   * @throws OutboxException when the database is not supported ({@link OutboxSchemaException} when
   *     the tables are missing or lack columns)
   */
  public static JdbcOutbox create(DataSource dataSource, OutboxOptions options) {
    return builder(dataSource).options(options).build();
  }

  /**
   * A builder for an outbox on a data source.
   *
   * @param dataSource the database with the business data and the outbox tables
   * @return the builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Writes one event for an aggregate on a connection in a transaction, as {@link EventBatch#send}
   * does.
   *
   * @param connection a connection with auto-commit off, in the application's transaction
   * @param aggregateType the aggregate type, non-blank
   * @param aggregateId the aggregate id, non-blank
   * @param event the event
   * @throws OutboxException naming what is wrong; nothing is written
   */
  public void send(
      Connection connection, String aggregateType, String aggregateId, DomainEvent event) {
    batch().add(aggregateType, aggregateId, event).send(connection);
  }

  /**
   * A batch of events written together (the heads of several aggregates locked in sorted order).
   *
   * @return an empty batch
   */
  public EventBatch batch() {
    return batch(SEND_FAILED);
  }

  /**
   * A batch for a persistence adapter, whose failures end with the adapter's own consequence.
   *
   * @param consequence what a failure means for the caller, for example "The flush failed and the
   *     transaction must roll back; nothing was written."
   * @return an empty batch
   */
  public EventBatch batch(String consequence) {
    return new EventBatch(this, new PendingRows(rows, writer, handOver, consequence));
  }

  /**
   * Runs work in a transaction on a connection of the data source: commits when it returns, rolls
   * back when it throws, and hands the events it sent to the processor of this JVM after the
   * commit. The way to send from plain JDBC with the fast path.
   *
   * @param work the work
   * @return what the work returned
   * @param <T> the result type
   * @throws OutboxException wrapping an {@link SQLException} of the work or the commit
   */
  public <T> T inTransaction(SqlWork<T> work) {
    return local.run(dataSource, work);
  }

  /**
   * Tells the processors of this JVM that a transaction committed messages, so that they claim at
   * once: the one call to make after committing a plain JDBC transaction that sent events outside
   * {@link #inTransaction} and any {@link TransactionObserver}. Without it they are claimed at the
   * next poll.
   */
  public void committed() {
    handOver.committed();
  }

  /**
   * The outbox of {@link DeliveryMode#CDC}: no processor and no publisher (Debezium reads the table
   * from the database's log); {@link Outbox#start()} runs the cleanup by age, {@link
   * Outbox#health()} and the dead letters work as usual.
   *
   * @return the outbox, not started
   * @throws OutboxException when this outbox's options are not in CDC mode
   */
  public Outbox outbox() {
    if (options.deliveryMode() != DeliveryMode.CDC) {
      throw new OutboxException(
          "An outbox without an EventPublisher needs deliveryMode CDC, but this JdbcOutbox was"
              + " built with "
              + options.deliveryMode()
              + ": pass the broker's publisher to outbox(publisher), or set"
              + " deliveryMode(DeliveryMode.CDC) when Debezium delivers");
    }
    return Outbox.create(options, store, CONNECTOR_DELIVERS, Clock.systemUTC());
  }

  /**
   * The processor on this database: claims, publishes through the publisher, retries, dead-letters
   * and cleans up, with this outbox's options. Call {@link Outbox#start()} to start it. Each
   * message is published in a span of its own when the trace context is on (see {@link
   * #withPublishSpans}).
   *
   * @param publisher the broker adapter; closed when the outbox closes
   * @return the outbox, not started
   */
  public Outbox outbox(EventPublisher publisher) {
    return outbox(publisher, Clock.systemUTC());
  }

  /**
   * The same with a clock, for tests.
   *
   * @param publisher the broker adapter; closed when the outbox closes
   * @param clock the engine's clock
   * @return the outbox, not started
   */
  public Outbox outbox(EventPublisher publisher, Clock clock) {
    EventPublisher traced =
        options.deliveryMode() == DeliveryMode.CDC ? publisher : withPublishSpans(publisher);
    return Outbox.create(options, store, traced, clock);
  }

  /**
   * The publisher as {@link #outbox(EventPublisher)} uses it: with the trace context on and the
   * OpenTelemetry API on the classpath, a PRODUCER span {@code publish <destination>} per message,
   * child of the context stored with the message, which then carries the span's {@code
   * traceparent}; otherwise the publisher itself. For a persistence adapter that creates the engine
   * with options of its own.
   *
   * @param publisher the broker adapter
   * @return the publisher in publish spans, or the publisher itself
   */
  public EventPublisher withPublishSpans(EventPublisher publisher) {
    return trace.publisher(Objects.requireNonNull(publisher, "publisher"));
  }

  /**
   * The store the processor claims and records on; one per {@code JdbcOutbox}.
   *
   * @return the store
   */
  public OutboxStore store() {
    return store;
  }

  /**
   * The options this outbox was built with.
   *
   * @return the options
   */
  public OutboxOptions options() {
    return options;
  }

  /**
   * The Flyway location of the migration shipped for this database, for example {@code
   * classpath:db/outbox/postgresql}.
   *
   * @return the location
   */
  public String migrationLocation() {
    return OutboxTables.location(dialect);
  }

  void write(Connection connection, PendingRows pending) {
    Objects.requireNonNull(connection, "connection");
    try {
      if (connection.getAutoCommit()) {
        throw new OutboxException(
            "Cannot send "
                + pending.size()
                + " event(s) on a connection in auto-commit mode: an event must belong to a"
                + " transaction, or it could be delivered for a change that never happened. Call"
                + " connection.setAutoCommit(false) first, send within a @Transactional method or"
                + " JdbcOutbox.inTransaction(...). Nothing was written.");
      }
      AfterCommit afterCommit = new AfterCommit();
      boolean observed =
          local.afterCommit(connection, afterCommit)
              || observer.afterCommit(connection, afterCommit);
      afterCommit.set(pending.write(connection, observed));
    } catch (SQLException e) {
      throw new OutboxException(
          "Cannot write "
              + pending.size()
              + " event(s) to "
              + options.outboxTable()
              + ": "
              + e.getMessage()
              + ". The transaction should roll back.",
          e);
    }
  }

  private static EventSerializer serializer(OutboxOptions options) {
    return options.serializer().orElseGet(DefaultSerializer::jackson);
  }

  @Override
  public String toString() {
    return "JdbcOutbox[" + options.outboxTable() + " on " + dialect + ']';
  }

  /** Work on a connection in a transaction. */
  @FunctionalInterface
  public interface SqlWork<T> {

    /**
     * Runs the work.
     *
     * @param connection the transaction's connection; do not commit or close it
     * @return the result
     * @throws SQLException for the transaction to roll back
     */
    T run(Connection connection) throws SQLException;
  }

  /** The action registered before the write, filled in once it succeeded. */
  private static final class AfterCommit implements Runnable {
    private volatile Runnable action = () -> {};

    void set(Runnable action) {
      this.action = action;
    }

    @Override
    public void run() {
      action.run();
    }
  }

  /** Builds a {@link JdbcOutbox}. */
  public static final class Builder {
    private final DataSource dataSource;
    private OutboxOptions options = OutboxOptions.defaults();
    private final List<HeaderProvider> headerProviders = new ArrayList<>();
    private TransactionObserver observer = TransactionObserver.NONE;
    private Clock clock = Clock.systemUTC();
    private boolean traceContext = true;
    private Object openTelemetry;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * The options: tables, serializer, header providers, and the processor's.
     *
     * @param options the options; {@link OutboxOptions#defaults()} when not set
     * @return this builder
     */
    public Builder options(OutboxOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Adds headers to every event, after the trace context and before the options' header providers
     * and the event's own (a later one wins on a name they share).
     *
     * @param provider the provider, for example a correlation id
     * @return this builder
     */
    public Builder headerProvider(HeaderProvider provider) {
      headerProviders.add(Objects.requireNonNull(provider, "provider"));
      return this;
    }

    /**
     * Whether rows store the W3C trace context ({@code traceparent}, {@code tracestate}) of the
     * OpenTelemetry span active at the send, and {@link JdbcOutbox#outbox(EventPublisher)} opens a
     * publish span per message under it. Default {@code true}; has no effect without the
     * OpenTelemetry API ({@code io.opentelemetry:opentelemetry-api}) on the classpath. With {@code
     * false} the outbox does no trace work at all.
     *
     * @param enabled {@code false} to turn the trace context off
     * @return this builder
     */
    public Builder traceContext(boolean enabled) {
      this.traceContext = enabled;
      return this;
    }

    /**
     * The OpenTelemetry whose tracer opens the publish spans. Typed {@code Object} so that this
     * class loads without the OpenTelemetry API. Default: {@code GlobalOpenTelemetry}, read at the
     * first publish, so that an SDK registered at start-up (or the Java agent's) is the one used.
     *
     * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}
     * @return this builder
     * @throws OutboxException when it is no {@code io.opentelemetry.api.OpenTelemetry}
     */
    public Builder openTelemetry(Object openTelemetry) {
      Objects.requireNonNull(openTelemetry, "openTelemetry");
      TraceContext.checkOpenTelemetry(openTelemetry);
      this.openTelemetry = openTelemetry;
      return this;
    }

    /**
     * How the outbox sees the commit of the application's transactions.
     *
     * @param observer the observer, for example Spring's transaction synchronization
     * @return this builder
     */
    public Builder transactionObserver(TransactionObserver observer) {
      this.observer = Objects.requireNonNull(observer, "observer");
      return this;
    }

    /**
     * The clock of {@code created_at} and of events without {@code occurredAt}, for tests.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Connects once to learn the database and check (or create) the tables, and builds the outbox.
     *
     * @return the outbox
     * @throws OutboxException when the database cannot be reached, is not supported, cannot run the
     *     delivery mode, or lacks the tables ({@link OutboxSchemaException})
     */
    public JdbcOutbox build() {
      try (Connection connection = dataSource.getConnection()) {
        Dialect dialect = Dialect.of(connection.getMetaData().getDatabaseProductName(), options);
        dialect.checkSupports(options.deliveryMode());
        new SchemaManager(dialect, options).prepare(connection);
        return new JdbcOutbox(this, dialect);
      } catch (SQLException e) {
        throw new OutboxException(
            "Cannot check the outbox tables " + options.outboxTable() + ": " + e.getMessage(), e);
      }
    }
  }

  /** The serializer when the options name none: Jackson's, when it is on the classpath. */
  private static final class DefaultSerializer {
    static EventSerializer jackson() {
      try {
        Class.forName(
            "com.fasterxml.jackson.databind.ObjectMapper",
            false,
            JdbcOutbox.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new OutboxException(
            "No EventSerializer: set one with OutboxOptions.builder().serializer(...), or put"
                + " com.fasterxml.jackson.core:jackson-databind on the classpath to use "
                + JacksonEventSerializer.class.getName());
      }
      return new JacksonEventSerializer();
    }
  }
}
