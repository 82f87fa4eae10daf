package dev.outbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxMessage;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The builder's defaults and checks, and how often the gauges read the health. */
class OutboxMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void theConstructorsStillBuildMetricsWithTheirCommonTags() {
    new OutboxMetrics(registry, Tags.of("service", "orders"));
    new OutboxMetrics(new SimpleMeterRegistry());

    assertThat(registry.get("outbox.batch.size").tag("service", "orders").summary().count())
        .isZero();
  }

  @Test
  void theLatencyHasNoHistogramByDefault() {
    OutboxMetrics.builder(registry).build().published(message(), "t", Instant.EPOCH);

    assertThat(OutboxMetrics.DEFAULT_LATENCY_HISTOGRAM).isFalse();
    assertThat(registry.get("outbox.delivery.latency").timer().takeSnapshot().histogramCounts())
        .isEmpty();
  }

  @Test
  void aLatencyBelowZeroFromClockSkewIsRecordedAsZero() {
    OutboxMetrics.builder(registry)
        .build()
        .published(message(), "t", Instant.EPOCH.minusSeconds(5));

    assertThat(registry.get("outbox.delivery.latency").timer().max(TimeUnit.SECONDS)).isZero();
  }

  @Test
  void theHealthIsReadOncePerTtlHoweverOftenTheGaugesArePolled() {
    FakeOutbox outbox = FakeOutbox.polling(3, Duration.ofSeconds(2), 1);
    OutboxMetrics.builder(registry).healthTtl(Duration.ofHours(1)).build().watch(outbox);

    for (int poll = 0; poll < 3; poll++) {
      registry.get("outbox.messages.pending").gauge().value();
      registry.get("outbox.dead.letters").gauge().value();
      registry.get("outbox.lag").timeGauge().value(TimeUnit.SECONDS);
    }

    assertThat(outbox.healthReads()).isEqualTo(1);
  }

  @Test
  void brokerOutageGaugeShowsHowLongTheBrokerHasBeenUnavailable() {
    FakeOutbox outbox = FakeOutbox.brokerDownFor(Duration.ofSeconds(90));
    OutboxMetrics.builder(registry).healthTtl(Duration.ZERO).build().watch(outbox);

    assertThat(registry.get("outbox.broker.outage").timeGauge().value(TimeUnit.SECONDS))
        .isEqualTo(90);

    outbox.setHealth(FakeOutbox.polling(3, Duration.ZERO, 0).health());
    assertThat(registry.get("outbox.broker.outage").timeGauge().value(TimeUnit.SECONDS)).isZero();
  }

  @Test
  void aZeroTtlReadsTheHealthOnEveryPoll() {
    FakeOutbox outbox = FakeOutbox.polling(3, Duration.ofSeconds(2), 1);
    OutboxMetrics.builder(registry).healthTtl(Duration.ZERO).build().watch(outbox);
    assertThat(registry.get("outbox.messages.pending").gauge().value()).isEqualTo(3);

    outbox.setHealth(FakeOutbox.unreadable().health());

    assertThat(registry.get("outbox.messages.pending").gauge().value()).isNaN();
    assertThat(registry.get("outbox.lag").timeGauge().value(TimeUnit.MILLISECONDS)).isNaN();
  }

  @Test
  void theLagGaugeReadsInAnyTimeUnit() {
    OutboxMetrics.builder(registry)
        .build()
        .watch(FakeOutbox.polling(3, Duration.ofMillis(2_500), 1));

    assertThat(registry.get("outbox.lag").timeGauge().value(TimeUnit.MILLISECONDS))
        .isEqualTo(2_500);
  }

  @Test
  void invalidOptionsFailWithAMessageNamingThem() {
    assertFails(() -> OutboxMetrics.builder(null), "registry must not be null");
    assertFails(
        () -> OutboxMetrics.builder(registry).commonTags("service"),
        "commonTags must be key/value pairs, but had 1 strings: [service]");
    assertFails(
        () -> OutboxMetrics.builder(registry).commonTags("", "orders"),
        "commonTags key must not be blank, but was \"\"");
    assertFails(
        () -> OutboxMetrics.builder(registry).commonTags("service", null),
        "commonTags value of \"service\" must not be null");
    assertFails(
        () -> OutboxMetrics.builder(registry).commonTags(Tags.of("destination", "x")),
        "commonTags must not use the key \"destination\", which the meters set themselves,"
            + " but had destination=x");
    assertFails(
        () -> OutboxMetrics.builder(registry).commonTags(Arrays.asList((Tag) null)),
        "commonTags element must not be null");
    assertFails(
        () -> OutboxMetrics.builder(registry).latencySlos(Duration.ofMillis(100), Duration.ZERO),
        "latencySlos must each be > 0, but was PT0S in [PT0.1S, PT0S]");
    assertFails(
        () -> OutboxMetrics.builder(registry).latencySlos((Duration[]) null),
        "latencySlos must not be null");
    assertFails(
        () -> OutboxMetrics.builder(registry).healthTtl(Duration.ofSeconds(-1)),
        "healthTtl must be >= 0, but was PT-1S");
    assertFails(
        () -> OutboxMetrics.builder(registry).build().watch(null), "outbox must not be null");
  }

  @Test
  void aFailedBuildRegistersNothing() {
    assertThatThrownBy(() -> OutboxMetrics.builder(registry).commonTags("event.type", "x").build())
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(registry.getMeters()).isEmpty();
  }

  private static void assertFails(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  private static OutboxMessage message() {
    return new OutboxMessage(
        UUID.fromString("0190a8f2-7c3e-7a01-8b2c-3d4e5f607182"),
        1,
        "Order",
        "order-1",
        "order.placed",
        OutboxMessage.JSON,
        "{}",
        Map.of(),
        Instant.EPOCH,
        Instant.EPOCH,
        0);
  }
}
