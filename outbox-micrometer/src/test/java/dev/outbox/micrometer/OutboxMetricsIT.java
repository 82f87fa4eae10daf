package dev.outbox.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.DeadLetterQuery;
import dev.outbox.Outbox;
import dev.outbox.OutboxOptions;
import dev.outbox.PublishException;
import dev.outbox.hibernate.testing.e2e.E2eDatabase;
import dev.outbox.spi.EventPublisher;
import dev.outbox.spi.PublishResult;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The meters move with what the outbox does, on the real store on PostgreSQL, in a Prometheus
 * registry with the latency histogram on.
 */
class OutboxMetricsIT {

  private enum Mode {
    UP,
    DOWN,
    REFUSING
  }

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<Mode> broker = new AtomicReference<>(Mode.UP);
  private E2eDatabase database;
  private Outbox outbox;

  /** A broker that acknowledges, is unreachable, or refuses every message for good. */
  private final EventPublisher publisher =
      (messages, timeout) ->
          messages.stream()
              .map(
                  m ->
                      switch (broker.get()) {
                        case UP -> PublishResult.published(m.id(), "orders-topic");
                        case DOWN ->
                            PublishResult.failed(
                                m.id(),
                                PublishException.retryable(
                                    m.id(), "orders-topic", "broker unreachable", null));
                        case REFUSING ->
                            PublishResult.failed(
                                m.id(),
                                PublishException.permanent(
                                    m.id(), "orders-topic", "too large", null));
                      })
              .toList();

  @BeforeEach
  void startDatabase() {
    database = E2eDatabase.start("metrics");
  }

  private void startOutbox(int maxAttempts) {
    OutboxMetrics metrics =
        OutboxMetrics.builder(registry)
            .commonTags("service", "orders")
            .latencyHistogram(true)
            .build();
    OutboxOptions options =
        database.options().toBuilder()
            .listener(metrics)
            .maxAttempts(maxAttempts)
            .retention(Duration.ZERO)
            .build();
    outbox = database.outbox(publisher, options);
    metrics.watch(outbox);
    outbox.start();
  }

  @AfterEach
  void stop() {
    if (outbox != null) {
      outbox.close();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void countersAndTimersMoveAcrossPublishFailureDeadLetterReplayAndCleanup() throws Exception {
    database.writer("Order").write(10, 2, 1);
    startOutbox(3);
    await().atMost(Duration.ofSeconds(30)).until(() -> published() == 10);
    // The listener counts each message, then times it, then reports the batch: poll until all are
    // in.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(
                      registry
                          .get("outbox.delivery.latency")
                          .tag("event.type", "e2e.stepped")
                          .timer()
                          .count())
                  .isEqualTo(10);
              assertThat(
                      registry
                          .get("outbox.batch.size")
                          .tag("service", "orders")
                          .summary()
                          .totalAmount())
                  .isGreaterThanOrEqualTo(10);
              assertThat(registry.get("outbox.claim.duration").timer().count()).isPositive();
            });
    assertThat(registry.scrape())
        .contains(
            "outbox_delivery_latency_seconds_bucket{event_type=\"e2e.stepped\","
                + "service=\"orders\",le=\"+Inf\"} 10");

    broker.set(Mode.DOWN);
    database.writer("Order").write(2, 2, 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> counter("outbox.messages.failed") >= 2);
    broker.set(Mode.REFUSING);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> counter("outbox.messages.dead.lettered") == 2);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(() -> assertThat(gauge("outbox.dead.letters")).isEqualTo(2));

    broker.set(Mode.UP);
    outbox.deadLetters().replayAll(DeadLetterQuery.all());
    await().atMost(Duration.ofSeconds(30)).until(() -> published() == 12);
    assertThat(registry.get("outbox.dead.letters.replayed").counter().count()).isEqualTo(2);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(() -> assertThat(gauge("outbox.dead.letters")).isZero());

    outbox.cleanUpOnce();
    assertThat(registry.get("outbox.messages.deleted").counter().count()).isEqualTo(12);
  }

  @Test
  void lagGrowsWhilePublishingFailsAndFallsToZeroOnceDelivered() throws Exception {
    broker.set(Mode.DOWN);
    database.writer("Order").write(5, 5, 1);
    startOutbox(1_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> gauge("outbox.messages.pending") == 5);
    double firstLag = lagMillis();
    await().atMost(Duration.ofSeconds(10)).until(() -> lagMillis() > firstLag + 1_000);

    broker.set(Mode.UP);
    await().atMost(Duration.ofSeconds(60)).until(() -> published() == 5);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> gauge("outbox.messages.pending") == 0 && lagMillis() == 0);
  }

  private double published() {
    return counter("outbox.messages.published");
  }

  private double counter(String name) {
    return registry.find(name).tags("destination", "orders-topic").counters().stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  private double gauge(String name) {
    return registry.get(name).tag("service", "orders").gauge().value();
  }

  private double lagMillis() {
    return registry.get("outbox.lag").timeGauge().value(TimeUnit.MILLISECONDS);
  }
}
