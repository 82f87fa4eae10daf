/**
 * End-to-end helpers for adapters' tests of the whole path, Hibernate on PostgreSQL, the processor
 * and the broker: {@link dev.outbox.testkit.e2e.E2eDatabase} starts a persistence unit with its own
 * outbox tables, {@link dev.outbox.testkit.e2e.EventWriter} commits numbered events from concurrent
 * transactions, and {@link dev.outbox.testkit.e2e.DeliveryCheck} checks what a consumer received.
 * Public API of the test kit.
 */
package dev.outbox.testkit.e2e;
