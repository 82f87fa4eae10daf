/**
 * Test support for broker adapters: the {@link dev.outbox.testkit.EventPublisherContract} every
 * adapter's integration test extends against its real broker, the {@link
 * dev.outbox.testkit.TestMessages} it publishes, and {@link dev.outbox.testkit.RequiredServer} to
 * skip (or, in CI, fail) a test whose server is not running. Public API of the test kit.
 */
package dev.outbox.testkit;
