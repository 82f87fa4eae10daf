/** Micrometer metrics of the outbox: {@link dev.outbox.micrometer.OutboxMetrics}. Public API. */
package dev.outbox.micrometer;
