/**
 * Test support for adapter and store authors: the {@link dev.outbox.testkit.EventPublisherContract}
 * every adapter's integration test extends against its real broker, the {@link
 * dev.outbox.testkit.TestMessages} it publishes, the {@link dev.outbox.testkit.OutboxStoreContract}
 * every {@code OutboxStore} is held to (the in-memory one and the JDBC one on each database), and
 * {@link dev.outbox.testkit.RequiredServer} to skip (or, in CI, fail) a test whose server is not
 * running. Public API of the test kit.
 */
package dev.outbox.testkit;
