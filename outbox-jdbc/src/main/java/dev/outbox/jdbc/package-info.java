/**
 * The outbox on any JDBC {@link javax.sql.DataSource}: {@link dev.outbox.jdbc.JdbcOutbox} sends
 * events in the application's transactions and runs the processor; {@link
 * dev.outbox.jdbc.EventBatch} writes the events of several aggregates together (persistence
 * adapters such as {@code outbox-hibernate} write through it); {@link dev.outbox.jdbc.OutboxTables}
 * reaches the tables from tools; {@link dev.outbox.jdbc.JacksonEventSerializer} is the default
 * serializer when Jackson is present; {@link dev.outbox.jdbc.JdbcOutboxModule} wires the outbox
 * with Guice (optional) on a bound {@link javax.sql.DataSource}.
 */
package dev.outbox.jdbc;
