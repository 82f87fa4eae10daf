/**
 * End-to-end helpers for tests of the whole path through the Hibernate harvest: Hibernate on
 * PostgreSQL, the processor and a broker. {@link dev.outbox.hibernate.testing.e2e.E2eDatabase}
 * starts a persistence unit with its own outbox tables, {@link
 * dev.outbox.hibernate.testing.e2e.EventWriter} commits numbered events of {@link
 * dev.outbox.hibernate.testing.e2e.E2eAggregate} from concurrent transactions, and {@link
 * dev.outbox.hibernate.testing.e2e.HeadSampler} watches the heads' attempts, the dead letters and
 * the health meanwhile; the test kit's {@link dev.outbox.testkit.e2e.DeliveryCheck} checks what a
 * consumer received. {@link dev.outbox.hibernate.testing.e2e.BrokerOutageContract} is the
 * end-to-end contract every adapter's {@code *BrokerOutageIT} extends: a broker outage, a poison
 * message and refused credentials on its real broker.
 *
 * <p>Published in outbox-hibernate's test-jar: depend on {@code dev.outbox:outbox-hibernate} with
 * {@code <type>test-jar</type>} and test scope, next to {@code outbox-hibernate}, {@code
 * outbox-testkit} and the PostgreSQL driver, which the test-jar does not bring.
 */
package dev.outbox.hibernate.testing.e2e;
