package dev.outbox.micrometer;

import dev.outbox.DeliveryMode;
import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Publishes what the outbox does as Micrometer meters. It is an {@link OutboxListener} for the
 * counters and timers, and {@link #watch(Outbox)} adds the gauges read from {@link
 * Outbox#health()}.
 *
 * <pre>{@code
 * OutboxMetrics metrics =
 *     OutboxMetrics.builder(registry).commonTags("service", "orders").latencyHistogram(true).build();
 * OutboxOptions options = OutboxOptions.builder().listener(metrics).build();
 * Outbox outbox = HibernateOutbox.create(emf, publisher, options);
 * metrics.watch(outbox);
 * }</pre>
 *
 * <p>Names follow Micrometer's conventions, so that each registry renders them without repeating a
 * unit: counts have no base unit (Prometheus adds {@code _total} once), durations are timers and a
 * time gauge (Prometheus {@code _seconds}). The module's README lists the Prometheus series.
 *
 * <ul>
 *   <li>counters {@code outbox.messages.published}, {@code outbox.messages.failed} (attempts that
 *       will be retried), {@code outbox.messages.dead.lettered}, tagged {@code event.type} and
 *       {@code destination}
 *   <li>timer {@code outbox.delivery.latency}, from the commit that wrote a message to the broker's
 *       acknowledgement, tagged {@code event.type}; a histogram with {@link
 *       Builder#latencyHistogram(boolean)} or {@link Builder#latencySlos(Duration...)}
 *   <li>distribution summary {@code outbox.batch.size}: messages per claimed batch
 *   <li>timers {@code outbox.claim.duration}, {@code outbox.publish.duration}, {@code
 *       outbox.record.duration}: the three steps of a cycle
 *   <li>counters {@code outbox.dead.letters.replayed}, {@code outbox.messages.deleted} (by cleanup)
 *   <li>after {@link #watch(Outbox)}: gauges {@code outbox.messages.pending}, {@code
 *       outbox.dead.letters}, and time gauges {@code outbox.lag}, the age of the oldest pending
 *       message, and {@code outbox.broker.outage}, how long this instance's broker has been
 *       unavailable (0 while it takes messages)
 * </ul>
 *
 * <p>A gauge whose value the outbox does not know shows {@link Double#NaN}: all three when the
 * store cannot be read, and pending and lag in {@link DeliveryMode#CDC}, where the connector's
 * replication slot knows what waits (watch its lag instead). Every meter also carries the common
 * tags.
 */
public final class OutboxMetrics implements OutboxListener {

  /** How long a health snapshot serves the gauges before it is read again. */
  public static final Duration DEFAULT_HEALTH_TTL = Duration.ofSeconds(1);

  /** Whether the delivery latency is published as a histogram by default: no. */
  public static final boolean DEFAULT_LATENCY_HISTOGRAM = false;

  private static final String EVENT_TYPE = "event.type";
  private static final String DESTINATION = "destination";
  private static final String UNKNOWN = "unknown";

  private final MeterRegistry registry;
  private final Tags tags;
  private final Duration healthTtl;
  private final Meter.MeterProvider<Counter> published;
  private final Meter.MeterProvider<Counter> failed;
  private final Meter.MeterProvider<Counter> deadLettered;
  private final Meter.MeterProvider<Timer> latency;
  private final DistributionSummary batchSize;
  private final Timer claim;
  private final Timer publish;
  private final Timer record;
  private final Counter replayed;
  private final Counter deleted;

  /** Micrometer holds gauge state weakly: the snapshots live here as long as the metrics do. */
  private final List<HealthCache> watched = new CopyOnWriteArrayList<>();

  /**
   * Metrics with the defaults and without common tags; the same as {@code
   * builder(registry).build()}.
   *
   * @param registry where the meters go
   */
  public OutboxMetrics(MeterRegistry registry) {
    this(builder(registry));
  }

  /**
   * Metrics with common tags; the same as {@code builder(registry).commonTags(commonTags).build()}.
   *
   * @param registry where the meters go
   * @param commonTags tags added to every meter
   */
  public OutboxMetrics(MeterRegistry registry, Iterable<Tag> commonTags) {
    this(builder(registry).commonTags(commonTags));
  }

  private OutboxMetrics(Builder builder) {
    this.registry = builder.registry;
    this.tags = builder.commonTags;
    this.healthTtl = builder.healthTtl;
    this.published =
        messageCounter("outbox.messages.published", "Messages the broker acknowledged");
    this.failed =
        messageCounter("outbox.messages.failed", "Failed publish attempts that will be retried");
    this.deadLettered =
        messageCounter("outbox.messages.dead.lettered", "Messages moved to the dead letters");
    this.latency =
        Timer.builder("outbox.delivery.latency")
            .description("From the commit that wrote a message to the broker's acknowledgement")
            .tags(tags)
            .publishPercentileHistogram(builder.latencyHistogram)
            .serviceLevelObjectives(builder.latencySlos.toArray(Duration[]::new))
            .withRegistry(registry);
    this.batchSize =
        DistributionSummary.builder("outbox.batch.size")
            .description("Messages per claimed batch")
            .tags(tags)
            .register(registry);
    this.claim = timer("outbox.claim.duration", "Time to claim a batch");
    this.publish = timer("outbox.publish.duration", "Time of one publish call to the broker");
    this.record = timer("outbox.record.duration", "Time to record the outcomes of a batch");
    this.replayed = counter("outbox.dead.letters.replayed", "Dead letters put back in the outbox");
    this.deleted = counter("outbox.messages.deleted", "Published messages deleted by cleanup");
  }

  /**
   * Starts building metrics.
   *
   * @param registry where the meters go
   * @return a builder with the defaults
   * @throws IllegalArgumentException when the registry is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  /**
   * Adds the gauges read from the outbox's health snapshot, which is read at most once per {@link
   * Builder#healthTtl(Duration) health TTL} however often the registry polls.
   *
   * @param outbox the outbox to watch
   * @return this
   */
  public OutboxMetrics watch(Outbox outbox) {
    HealthCache health = new HealthCache(MetricsChecks.notNull("outbox", outbox), healthTtl);
    watched.add(health);
    Gauge.builder("outbox.messages.pending", health, HealthCache::pending)
        .description(
            "Messages waiting to be published; NaN when the store cannot be read, and in CDC"
                + " mode, where the connector's replication slot knows")
        .tags(tags)
        .register(registry);
    Gauge.builder("outbox.dead.letters", health, HealthCache::deadLetters)
        .description("Messages in the dead letters; NaN when the store cannot be read")
        .tags(tags)
        .register(registry);
    TimeGauge.builder("outbox.lag", health, TimeUnit.SECONDS, HealthCache::lagSeconds)
        .description(
            "Age of the oldest pending message, 0 when none waits; NaN when the store cannot be"
                + " read, and in CDC mode")
        .tags(tags)
        .register(registry);
    TimeGauge.builder(
            "outbox.broker.outage", health, TimeUnit.SECONDS, HealthCache::brokerOutageSeconds)
        .description(
            "How long this instance's broker has been unavailable (a failure of the broker or"
                + " the connection, counting no attempt); 0 while it takes messages")
        .tags(tags)
        .register(registry);
    return this;
  }

  @Override
  public void published(OutboxMessage message, String destination, Instant publishedAt) {
    count(published, message, destination);
    Duration delay = Duration.between(message.createdAt(), publishedAt);
    latency
        .withTag(EVENT_TYPE, message.eventType())
        .record(delay.isNegative() ? Duration.ZERO : delay);
  }

  @Override
  public void failed(
      OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {
    count(failed, message, destinationOf(error));
  }

  @Override
  public void deadLettered(OutboxMessage message, int attempts, PublishException error) {
    count(deadLettered, message, destinationOf(error));
  }

  @Override
  public void replayed(int count) {
    replayed.increment(count);
  }

  @Override
  public void cleanedUp(int count) {
    deleted.increment(count);
  }

  @Override
  public void batchCompleted(
      int size, int published, Duration claimTime, Duration publishTime, Duration recordTime) {
    batchSize.record(size);
    claim.record(claimTime);
    publish.record(publishTime);
    record.record(recordTime);
  }

  private static void count(
      Meter.MeterProvider<Counter> counter, OutboxMessage message, String destination) {
    counter
        .withTags(
            EVENT_TYPE,
            message.eventType(),
            DESTINATION,
            destination == null ? UNKNOWN : destination)
        .increment();
  }

  private static String destinationOf(PublishException error) {
    return error == null ? null : error.destination();
  }

  private Meter.MeterProvider<Counter> messageCounter(String name, String description) {
    return Counter.builder(name).description(description).tags(tags).withRegistry(registry);
  }

  private Timer timer(String name, String description) {
    return Timer.builder(name).description(description).tags(tags).register(registry);
  }

  private Counter counter(String name, String description) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  @Override
  public String toString() {
    return "OutboxMetrics" + tags;
  }

  /**
   * Builds {@link OutboxMetrics}. Each setter checks its value and names it when it is wrong.
   *
   * <pre>{@code
   * OutboxMetrics.builder(registry)
   *     .commonTags("service", "orders")
   *     .latencyHistogram(true)
   *     .latencySlos(Duration.ofMillis(100), Duration.ofSeconds(1))
   *     .build();
   * }</pre>
   */
  public static final class Builder {

    private final MeterRegistry registry;
    private Tags commonTags = Tags.empty();
    private boolean latencyHistogram = DEFAULT_LATENCY_HISTOGRAM;
    private List<Duration> latencySlos = List.of();
    private Duration healthTtl = DEFAULT_HEALTH_TTL;

    private Builder(MeterRegistry registry) {
      this.registry = MetricsChecks.notNull("registry", registry);
    }

    /**
     * Tags added to every meter, e.g. the service, or the outbox table when one application runs
     * several outboxes. Replaces the tags set before. Default: none.
     *
     * @param tags keys not blank and other than {@code event.type} and {@code destination}, which
     *     the meters set themselves
     * @return this builder
     */
    public Builder commonTags(Iterable<Tag> tags) {
      commonTags = MetricsChecks.commonTags(tags);
      return this;
    }

    /**
     * Tags added to every meter, as key/value pairs: {@code commonTags("service", "orders")}.
     *
     * @param keyValues an even number of strings, the keys as {@link #commonTags(Iterable)} says
     * @return this builder
     */
    public Builder commonTags(String... keyValues) {
      commonTags = MetricsChecks.commonTags(MetricsChecks.pairs(keyValues));
      return this;
    }

    /**
     * Publishes the delivery latency as a percentile histogram (Micrometer's {@code
     * publishPercentileHistogram}; Prometheus {@code outbox_delivery_latency_seconds_bucket}
     * series), which lets the server compute quantiles across instances. Micrometer's default
     * buckets for timers span 1 ms to 30 s; a {@code MeterFilter} can change that. Default: off
     * ({@link OutboxMetrics#DEFAULT_LATENCY_HISTOGRAM}).
     *
     * @param enabled whether to publish the histogram
     * @return this builder
     */
    public Builder latencyHistogram(boolean enabled) {
      latencyHistogram = enabled;
      return this;
    }

    /**
     * Service level objectives of the delivery latency: each boundary becomes a histogram bucket
     * (Prometheus {@code le}), also when {@link #latencyHistogram(boolean)} is off, so that the
     * share delivered within each is exact. Replaces the boundaries set before. Default: none.
     *
     * @param boundaries each &gt; 0
     * @return this builder
     */
    public Builder latencySlos(Duration... boundaries) {
      latencySlos = MetricsChecks.positive("latencySlos", boundaries);
      return this;
    }

    /**
     * How long a health snapshot serves the gauges before {@link Outbox#health()} is read again;
     * each read counts rows in the store. Default: {@link #DEFAULT_HEALTH_TTL}.
     *
     * @param ttl &gt;= 0; zero reads the health on every poll of the registry
     * @return this builder
     */
    public Builder healthTtl(Duration ttl) {
      healthTtl = MetricsChecks.notNegative("healthTtl", ttl);
      return this;
    }

    /**
     * Builds the metrics and registers the meters that carry no per-message tags.
     *
     * @return the metrics
     */
    public OutboxMetrics build() {
      return new OutboxMetrics(this);
    }
  }
}
