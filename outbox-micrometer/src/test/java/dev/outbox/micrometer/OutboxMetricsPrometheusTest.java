package dev.outbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxMessage;
import dev.outbox.PublishException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The meters as a real Prometheus registry scrapes them: the series names, labels and values a user
 * queries. Fed by direct listener calls and a fake outbox's health.
 */
class OutboxMetricsPrometheusTest {

  private static final Instant COMMITTED = Instant.parse("2024-05-01T12:00:00Z");
  private static final String OPEN_METRICS =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";
  private static final String LATENCY_LABELS = "{event_type=\"order.placed\",service=\"orders\"}";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @Test
  void everyMeterRendersUnderAConventionalNameWithoutARepeatedUnit() {
    exercise(OutboxMetrics.builder(registry).commonTags("service", "orders").build());

    assertThat(seriesNames(registry.scrape()))
        .containsExactly(
            "outbox_batch_size_count",
            "outbox_batch_size_max",
            "outbox_batch_size_sum",
            "outbox_broker_outage_seconds",
            "outbox_claim_duration_seconds_count",
            "outbox_claim_duration_seconds_max",
            "outbox_claim_duration_seconds_sum",
            "outbox_dead_letters",
            "outbox_dead_letters_replayed_total",
            "outbox_delivery_latency_seconds_count",
            "outbox_delivery_latency_seconds_max",
            "outbox_delivery_latency_seconds_sum",
            "outbox_lag_seconds",
            "outbox_messages_dead_lettered_total",
            "outbox_messages_deleted_total",
            "outbox_messages_failed_total",
            "outbox_messages_pending",
            "outbox_messages_published_total",
            "outbox_publish_duration_seconds_count",
            "outbox_publish_duration_seconds_max",
            "outbox_publish_duration_seconds_sum",
            "outbox_record_duration_seconds_count",
            "outbox_record_duration_seconds_max",
            "outbox_record_duration_seconds_sum");
  }

  @Test
  void messageCountersCarryEventTypeDestinationAndTheCommonTags() {
    exercise(OutboxMetrics.builder(registry).commonTags("service", "orders").build());

    assertThat(samples(registry.scrape()))
        .contains(
            "outbox_messages_published_total{destination=\"orders-topic\","
                + "event_type=\"order.placed\",service=\"orders\"} 1.0",
            "outbox_messages_failed_total{destination=\"orders-topic\","
                + "event_type=\"order.placed\",service=\"orders\"} 1.0",
            "outbox_messages_dead_lettered_total{destination=\"unknown\","
                + "event_type=\"order.placed\",service=\"orders\"} 1.0",
            "outbox_dead_letters_replayed_total{service=\"orders\"} 1.0",
            "outbox_messages_deleted_total{service=\"orders\"} 4.0");
  }

  @Test
  void durationsRenderInSecondsAndBatchSizesAsAPlainDistribution() {
    exercise(OutboxMetrics.builder(registry).commonTags("service", "orders").build());

    assertThat(samples(registry.scrape()))
        .contains(
            "outbox_delivery_latency_seconds_count" + LATENCY_LABELS + " 1",
            "outbox_delivery_latency_seconds_sum" + LATENCY_LABELS + " 0.25",
            "outbox_delivery_latency_seconds_max" + LATENCY_LABELS + " 0.25",
            "outbox_claim_duration_seconds_sum{service=\"orders\"} 0.001",
            "outbox_publish_duration_seconds_sum{service=\"orders\"} 0.002",
            "outbox_record_duration_seconds_sum{service=\"orders\"} 0.003",
            "outbox_batch_size_count{service=\"orders\"} 1",
            "outbox_batch_size_sum{service=\"orders\"} 3.0",
            "outbox_batch_size_max{service=\"orders\"} 3.0",
            "outbox_lag_seconds{service=\"orders\"} 2.5",
            "outbox_broker_outage_seconds{service=\"orders\"} 0.0",
            "outbox_messages_pending{service=\"orders\"} 3.0",
            "outbox_dead_letters{service=\"orders\"} 1.0");
  }

  @Test
  void latencyHasNoBucketsByDefault() {
    exercise(OutboxMetrics.builder(registry).commonTags("service", "orders").build());

    String scrape = registry.scrape();
    assertThat(scrape).doesNotContain("_bucket");
    assertThat(scrape).contains("# TYPE outbox_delivery_latency_seconds summary");
  }

  @Test
  void latencyHistogramPublishesBucketsForTheLatencyOnly() {
    exercise(
        OutboxMetrics.builder(registry)
            .commonTags("service", "orders")
            .latencyHistogram(true)
            .build());

    String scrape = registry.scrape();
    List<String> buckets =
        samples(scrape).stream().filter(line -> line.contains("_bucket{")).toList();
    assertThat(scrape).contains("# TYPE outbox_delivery_latency_seconds histogram");
    assertThat(buckets)
        .hasSizeGreaterThan(10)
        .allMatch(line -> line.startsWith("outbox_delivery_latency_seconds_bucket{"))
        .contains(
            "outbox_delivery_latency_seconds_bucket{event_type=\"order.placed\","
                + "service=\"orders\",le=\"+Inf\"} 1");
    assertThat(seriesNames(scrape))
        .contains("outbox_delivery_latency_seconds_bucket")
        .filteredOn(name -> name.endsWith("_bucket"))
        .hasSize(1);
  }

  @Test
  void latencySlosBecomeExactlyTheirBucketsWithoutTheHistogram() {
    exercise(
        OutboxMetrics.builder(registry)
            .commonTags("service", "orders")
            .latencySlos(Duration.ofMillis(100), Duration.ofSeconds(1))
            .build());

    assertThat(samples(registry.scrape()).stream().filter(line -> line.contains("_bucket{")))
        .containsExactly(
            "outbox_delivery_latency_seconds_bucket{event_type=\"order.placed\","
                + "service=\"orders\",le=\"0.1\"} 0",
            "outbox_delivery_latency_seconds_bucket{event_type=\"order.placed\","
                + "service=\"orders\",le=\"1.0\"} 1",
            "outbox_delivery_latency_seconds_bucket{event_type=\"order.placed\","
                + "service=\"orders\",le=\"+Inf\"} 1");
  }

  @Test
  void gaugesShowNaNWhenTheStoreCannotBeRead() {
    OutboxMetrics.builder(registry)
        .commonTags("service", "orders")
        .build()
        .watch(FakeOutbox.unreadable());

    assertThat(gaugeSamples(registry.scrape()))
        .containsExactly(
            "outbox_dead_letters{service=\"orders\"} NaN",
            "outbox_lag_seconds{service=\"orders\"} NaN",
            "outbox_messages_pending{service=\"orders\"} NaN");
  }

  @Test
  void pendingAndLagShowNaNInCdcModeWhileDeadLettersAreCounted() {
    OutboxMetrics.builder(registry)
        .commonTags("service", "orders")
        .build()
        .watch(FakeOutbox.cdc(2));

    String scrape = registry.scrape();
    assertThat(gaugeSamples(scrape))
        .containsExactly(
            "outbox_dead_letters{service=\"orders\"} 2.0",
            "outbox_lag_seconds{service=\"orders\"} NaN",
            "outbox_messages_pending{service=\"orders\"} NaN");
    assertThat(scrape)
        .contains(
            "# HELP outbox_messages_pending Messages waiting to be published; NaN when the store"
                + " cannot be read, and in CDC mode");
  }

  @Test
  void anOpenMetricsScrapeShowsTheSameSeries() {
    exercise(
        OutboxMetrics.builder(registry)
            .commonTags("service", "orders")
            .latencyHistogram(true)
            .build());

    assertThat(seriesNames(registry.scrape(OPEN_METRICS)))
        .isEqualTo(seriesNames(registry.scrape()));
  }

  /** Watches a healthy outbox and makes each callback once; the message waited 250 ms. */
  private static void exercise(OutboxMetrics metrics) {
    metrics.watch(FakeOutbox.polling(3, Duration.ofMillis(2_500), 1));
    OutboxMessage message =
        new OutboxMessage(
            UUID.fromString("0190a8f2-7c3e-7a01-8b2c-3d4e5f607182"),
            1,
            "Order",
            "order-1",
            "order.placed",
            OutboxMessage.JSON,
            "{}",
            Map.of(),
            COMMITTED,
            COMMITTED,
            0);
    metrics.published(message, "orders-topic", COMMITTED.plusMillis(250));
    metrics.failed(
        message,
        1,
        PublishException.retryable(message.id(), "orders-topic", "broker unreachable", null),
        COMMITTED.plusSeconds(1));
    metrics.deadLettered(message, 2, PublishException.permanent(message.id(), null, "big", null));
    metrics.replayed(1);
    metrics.cleanedUp(4);
    metrics.batchCompleted(3, 3, Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(3));
  }

  /** The sample lines of a scrape, without the HELP, TYPE and EOF comments. */
  private static List<String> samples(String scrape) {
    return scrape.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
  }

  /** The sample lines of the three gauges read from the health. */
  private static List<String> gaugeSamples(String scrape) {
    return samples(scrape).stream()
        .filter(
            line ->
                line.startsWith("outbox_dead_letters{")
                    || line.startsWith("outbox_lag_seconds{")
                    || line.startsWith("outbox_messages_pending{"))
        .toList();
  }

  /** The distinct series names of a scrape, sorted. */
  private static List<String> seriesNames(String scrape) {
    return samples(scrape).stream()
        .map(line -> line.split("[{ ]", 2)[0])
        .distinct()
        .sorted()
        .toList();
  }
}
