/**
 * End-to-end helpers for adapters' tests of the whole path, Hibernate on PostgreSQL, the processor
 * and the broker: {@link dev.outbox.testkit.e2e.E2eDatabase} starts a persistence unit with its own
 * outbox tables, {@link dev.outbox.testkit.e2e.EventWriter} commits numbered events from concurrent
 * transactions, {@link dev.outbox.testkit.e2e.DeliveryCheck} checks what a consumer received, and
 * {@link dev.outbox.testkit.e2e.HeadSampler} watches the heads' attempts, the dead letters and the
 * health meanwhile. {@link dev.outbox.testkit.e2e.BrokerOutageContract} is the end-to-end contract
 * every adapter's {@code *BrokerOutageIT} extends: a broker outage, a poison message and refused
 * credentials on its real broker. Public API of the test kit.
 */
package dev.outbox.testkit.e2e;
