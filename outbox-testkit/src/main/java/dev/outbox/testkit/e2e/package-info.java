/**
 * What end-to-end tests check on the consumer's side: {@link dev.outbox.testkit.e2e.DeliveryCheck}
 * records what a consumer received and asserts that every event arrived, in order per aggregate,
 * once. The Hibernate-bound helpers that write the events (E2eDatabase, EventWriter) and the
 * broker-outage contract every adapter's end-to-end test extends live in outbox-hibernate's
 * test-jar, package {@code dev.outbox.hibernate.testing.e2e}. Public API of the test kit.
 */
package dev.outbox.testkit.e2e;
