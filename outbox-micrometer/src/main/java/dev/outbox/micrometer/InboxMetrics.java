package dev.outbox.micrometer;

import dev.outbox.inbox.InboxListener;
import dev.outbox.inbox.InboxResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.Objects;

/**
 * Counts what an inbox ({@code outbox-inbox}) does with the messages it is handed, as Micrometer
 * counters: {@code outbox.inbox.messages}, tagged {@code source} (the consumer's name), {@code
 * outcome} ({@code applied}, {@code duplicate}, {@code gap}) and {@code aggregate.type} ({@code
 * none} for a message of another producer, de-duplicated by its id), plus the common tags.
 *
 * <pre>{@code
 * InboxMetrics metrics = new InboxMetrics(registry, Tags.of("service", "billing"));
 * Inbox inbox = Inbox.create(dataSource, InboxOptions.builder().source("billing").build(), metrics);
 * }</pre>
 *
 * <p>The inbox reports an outcome before the consumer's transaction commits: a message applied in a
 * transaction that then rolled back counts once as applied, and again when it is applied on
 * redelivery. A steady rate of {@code gap} means messages wait for ones before them (see the
 * inbox's gaps view); a rate of {@code duplicate} is the broker's and the outbox's redelivery,
 * absorbed.
 */
public final class InboxMetrics implements InboxListener {

  private static final String NONE = "none";

  private final Meter.MeterProvider<Counter> messages;

  /**
   * Counters without common tags.
   *
   * @param registry where the meters go
   */
  public InboxMetrics(MeterRegistry registry) {
    this(registry, Tags.empty());
  }

  /**
   * Counters with common tags.
   *
   * @param registry where the meters go
   * @param commonTags tags added to every meter
   */
  public InboxMetrics(MeterRegistry registry, Tags commonTags) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(commonTags, "commonTags");
    this.messages =
        Counter.builder("outbox.inbox.messages")
            .description("Messages an inbox was handed, by what it did with them")
            .tags(commonTags)
            .withRegistry(registry);
  }

  @Override
  public void applied(InboxResult result) {
    count(result);
  }

  @Override
  public void duplicate(InboxResult result) {
    count(result);
  }

  @Override
  public void gap(InboxResult result) {
    count(result);
  }

  private void count(InboxResult result) {
    messages
        .withTags(
            "source",
            result.source(),
            "outcome",
            result.outcome().name().toLowerCase(Locale.ROOT),
            "aggregate.type",
            result.aggregateType() == null ? NONE : result.aggregateType())
        .increment();
  }

  @Override
  public String toString() {
    return "InboxMetrics";
  }
}
