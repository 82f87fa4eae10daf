package dev.outbox.spring.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxHealth;
import java.time.Duration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code outbox} health: UP while the processor runs (in CDC mode: cleanup) and the store can
 * be read; DOWN when it does not run, when the store cannot be read, when the broker has been
 * unavailable for longer than {@code outbox.broker-outage-tolerance} (1 min by default), or when
 * the oldest pending message is older than {@code outbox.health.max-lag} (when set). Details:
 * delivery mode, instance, pending, lag, dead letters, last error and its time, and during a broker
 * outage its start and reason. Dead letters alone never make it DOWN: they are waiting for a
 * person, not a failing service.
 */
public final class OutboxHealthIndicator extends AbstractHealthIndicator {

  private final Outbox outbox;
  private final Duration maxLag;

  /**
   * The health of an outbox.
   *
   * @param outbox the outbox
   * @param maxLag the lag above which it is DOWN, or {@code null} for no limit
   */
  public OutboxHealthIndicator(Outbox outbox, Duration maxLag) {
    super("Outbox health check failed");
    this.outbox = outbox;
    this.maxLag = maxLag;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    OutboxHealth health = outbox.health();
    boolean lagging = maxLag != null && health.lag().compareTo(maxLag) > 0;
    if (health.isHealthy() && !lagging) {
      builder.up();
    } else {
      builder.down();
    }
    builder
        .withDetail("running", health.running())
        .withDetail("deliveryMode", health.deliveryMode().name())
        .withDetail("instanceId", health.instanceId())
        .withDetail("pending", health.pending())
        .withDetail("lag", health.lag().toString())
        .withDetail("deadLetters", health.deadLetters());
    if (maxLag != null) {
      builder.withDetail("maxLag", maxLag.toString());
    }
    if (health.brokerUnavailableSince() != null) {
      builder.withDetail("brokerUnavailableSince", health.brokerUnavailableSince().toString());
      builder.withDetail(
          "brokerUnavailableReason", String.valueOf(health.brokerUnavailableReason()));
      builder.withDetail("brokerOutageTolerance", health.brokerOutageTolerance().toString());
    }
    if (health.lastError() != null) {
      builder.withDetail("lastError", health.lastError());
      builder.withDetail("lastErrorAt", String.valueOf(health.lastErrorAt()));
    }
  }
}
