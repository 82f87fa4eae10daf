package dev.outbox;

import dev.outbox.spi.OptionsBinder;
import java.time.Duration;
import org.slf4j.event.Level;

/**
 * The string keys of {@link OutboxOptions}, read by {@link OutboxOptions#fromMap} and {@link
 * OutboxOptions.Builder#bind}: every option that is a value, by its kebab-case name. The retry
 * policy is read in parts and combined at the end. The adapters' sections below the same prefix are
 * theirs.
 */
final class OutboxOptionsKeys {

  /** The sections of the adapters' options below the outbox's own prefix. */
  static final String[] ADAPTER_SECTIONS = {
    "kafka", "rabbitmq", "nats", "servicebus", "azure-servicebus"
  };

  /** What the keys set: the builder, and the parts of the retry policy until they are combined. */
  static final class Target {
    private final OutboxOptions.Builder builder;
    private Duration retryInitialDelay;
    private Double retryMultiplier;
    private Duration retryMaxDelay;
    private Double retryJitter;

    Target(OutboxOptions.Builder builder) {
      this.builder = builder;
    }

    /** Sets the retry policy from the parts given, the builder's policy filling in the others. */
    OutboxOptions.Builder finish() {
      if (retryInitialDelay == null
          && retryMultiplier == null
          && retryMaxDelay == null
          && retryJitter == null) {
        return builder;
      }
      RetryPolicy current = builder.currentRetryPolicy();
      RetryPolicy policy =
          RetryPolicy.exponential(
                  retryInitialDelay != null ? retryInitialDelay : current.initialDelay(),
                  retryMultiplier != null ? retryMultiplier : current.multiplier(),
                  retryMaxDelay != null ? retryMaxDelay : current.maxDelay())
              .withJitter(retryJitter != null ? retryJitter : current.jitter());
      return builder.retryPolicy(policy);
    }
  }

  static final OptionsBinder<Target> BINDER = binder();

  private OutboxOptionsKeys() {}

  private static OptionsBinder<Target> binder() {
    OptionsBinder<Target> binder =
        OptionsBinder.<Target>of("outbox")
            .string("outbox-table", (t, v) -> t.builder.outboxTable(v))
            .string("dead-letter-table", (t, v) -> t.builder.deadLetterTable(v))
            .bool("create-schema", (t, v) -> t.builder.createSchema(v))
            .enumeration("delivery-mode", DeliveryMode.class, (t, v) -> t.builder.deliveryMode(v))
            .duration("poll-interval", (t, v) -> t.builder.pollInterval(v))
            .integer("batch-size", (t, v) -> t.builder.batchSize(v))
            .integer("max-attempts", (t, v) -> t.builder.maxAttempts(v))
            .duration("retry-initial-delay", (t, v) -> t.retryInitialDelay = v)
            .decimal("retry-multiplier", (t, v) -> t.retryMultiplier = v)
            .duration("retry-max-delay", (t, v) -> t.retryMaxDelay = v)
            .decimal("retry-jitter", (t, v) -> t.retryJitter = v)
            .duration("publish-timeout", (t, v) -> t.builder.publishTimeout(v))
            .duration("lease-duration", (t, v) -> t.builder.leaseDuration(v))
            .duration("retention", (t, v) -> t.builder.retention(v))
            .duration("cleanup-interval", (t, v) -> t.builder.cleanupInterval(v))
            .integer("cleanup-batch-size", (t, v) -> t.builder.cleanupBatchSize(v))
            .integer("vacuum-threshold", (t, v) -> t.builder.vacuumThreshold(v))
            .bool("ordered-per-aggregate", (t, v) -> t.builder.orderedPerAggregate(v))
            .bool("hold-aggregate-on-dead-letter", (t, v) -> t.builder.holdAggregateOnDeadLetter(v))
            .string("instance-id", (t, v) -> t.builder.instanceId(v))
            .duration("shutdown-timeout", (t, v) -> t.builder.shutdownTimeout(v))
            .duration("broker-probe-interval", (t, v) -> t.builder.brokerProbeInterval(v))
            .duration("broker-outage-tolerance", (t, v) -> t.builder.brokerOutageTolerance(v))
            .enumeration("failure-log-level", Level.class, (t, v) -> t.builder.failureLogLevel(v))
            .bool("lease-on-write", (t, v) -> t.builder.leaseOnWrite(v));
    for (String section : ADAPTER_SECTIONS) {
      binder.ignoring(section);
    }
    return binder;
  }
}
