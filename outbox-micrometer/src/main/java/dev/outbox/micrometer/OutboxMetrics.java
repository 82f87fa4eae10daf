package dev.outbox.micrometer;

import dev.outbox.Outbox;
import dev.outbox.OutboxListener;
import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Publishes what the outbox does as Micrometer meters. It is an {@link OutboxListener} for the
 * counters and timers, and {@link #watch(Outbox)} adds the gauges read from {@link
 * Outbox#health()}.
 *
 * <pre>{@code
 * OutboxMetrics metrics = new OutboxMetrics(registry);
 * OutboxOptions options = OutboxOptions.builder().listener(metrics).build();
 * Outbox outbox = HibernateOutbox.create(emf, publisher, options);
 * metrics.watch(outbox);
 * }</pre>
 *
 * <p>Meters (base units; {@code event.type} and {@code destination} tags where listed):
 *
 * <ul>
 *   <li>{@code outbox.messages.published}, {@code outbox.messages.failed}, {@code
 *       outbox.messages.dead.lettered}: counters, tagged {@code event.type}, {@code destination}
 *   <li>{@code outbox.delivery.latency}: timer from the commit that wrote a message to the broker's
 *       acknowledgement, tagged {@code event.type}
 *   <li>{@code outbox.batch.size}: distribution of claimed batch sizes
 *   <li>{@code outbox.claim.duration}, {@code outbox.publish.duration}, {@code
 *       outbox.record.duration}: timers of the three steps of a cycle
 *   <li>{@code outbox.dead.letters.replayed}, {@code outbox.messages.deleted}: counters of replays
 *       and of published messages deleted by cleanup
 *   <li>{@code outbox.messages.pending}, {@code outbox.dead.letters}: gauges; {@code outbox.lag}:
 *       time gauge of the age of the oldest pending message (after {@link #watch(Outbox)})
 * </ul>
 *
 * Every meter also carries the common tags given to the constructor.
 */
public final class OutboxMetrics implements OutboxListener {

  /** How long a health snapshot serves the gauges before it is read again. */
  public static final Duration DEFAULT_HEALTH_TTL = Duration.ofSeconds(1);

  private static final String UNKNOWN = "unknown";

  private final MeterRegistry registry;
  private final Tags tags;
  private final DistributionSummary batchSize;
  private final Timer claim;
  private final Timer publish;
  private final Timer record;
  private final Counter replayed;
  private final Counter deleted;

  /** Micrometer holds gauge state weakly: the snapshots live here as long as the metrics do. */
  private final List<HealthCache> watched = new CopyOnWriteArrayList<>();

  /**
   * Metrics without common tags.
   *
   * @param registry where the meters go
   */
  public OutboxMetrics(MeterRegistry registry) {
    this(registry, Tags.empty());
  }

  /**
   * Metrics with common tags, e.g. the service or the outbox table when one application runs
   * several outboxes.
   *
   * @param registry where the meters go
   * @param commonTags tags added to every meter
   */
  public OutboxMetrics(MeterRegistry registry, Iterable<Tag> commonTags) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.tags = Tags.of(Objects.requireNonNull(commonTags, "commonTags"));
    this.batchSize =
        DistributionSummary.builder("outbox.batch.size")
            .description("Messages per claimed batch")
            .baseUnit("messages")
            .tags(tags)
            .register(registry);
    this.claim = timer("outbox.claim.duration", "Time to claim a batch");
    this.publish = timer("outbox.publish.duration", "Time of one publish call to the broker");
    this.record = timer("outbox.record.duration", "Time to record the outcomes of a batch");
    this.replayed = counter("outbox.dead.letters.replayed", "Dead letters put back in the outbox");
    this.deleted = counter("outbox.messages.deleted", "Published messages deleted by cleanup");
  }

  /**
   * Adds the gauges read from the outbox's health snapshot, which is read at most once per {@link
   * #DEFAULT_HEALTH_TTL} however often the registry polls.
   *
   * @param outbox the outbox to watch
   * @return this
   */
  public OutboxMetrics watch(Outbox outbox) {
    HealthCache health = new HealthCache(outbox, DEFAULT_HEALTH_TTL);
    watched.add(health);
    Gauge.builder("outbox.messages.pending", health, h -> h.get().pending())
        .description("Messages waiting to be published (-1 when the store cannot be read)")
        .baseUnit("messages")
        .tags(tags)
        .register(registry);
    Gauge.builder("outbox.dead.letters", health, h -> h.get().deadLetters())
        .description("Messages in the dead letters (-1 when the store cannot be read)")
        .baseUnit("messages")
        .tags(tags)
        .register(registry);
    TimeGauge.builder("outbox.lag", health, TimeUnit.MILLISECONDS, h -> h.get().lag().toMillis())
        .description("Age of the oldest pending message")
        .tags(tags)
        .register(registry);
    return this;
  }

  @Override
  public void published(OutboxMessage message, String destination, Instant publishedAt) {
    messageCounter("outbox.messages.published", message, destination).increment();
    Duration latency = Duration.between(message.createdAt(), publishedAt);
    Timer.builder("outbox.delivery.latency")
        .description("From the commit that wrote a message to the broker's acknowledgement")
        .tags(tags)
        .tag("event.type", message.eventType())
        .register(registry)
        .record(latency.isNegative() ? Duration.ZERO : latency);
  }

  @Override
  public void failed(
      OutboxMessage message, int attempt, PublishException error, Instant nextAttemptAt) {
    messageCounter("outbox.messages.failed", message, destinationOf(error)).increment();
  }

  @Override
  public void deadLettered(OutboxMessage message, int attempts, PublishException error) {
    messageCounter("outbox.messages.dead.lettered", message, destinationOf(error)).increment();
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

  private Counter messageCounter(String name, OutboxMessage message, String destination) {
    return Counter.builder(name)
        .baseUnit("messages")
        .tags(tags)
        .tag("event.type", message.eventType())
        .tag("destination", destination == null ? UNKNOWN : destination)
        .register(registry);
  }

  private static String destinationOf(PublishException error) {
    return error == null ? null : error.destination();
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
}
