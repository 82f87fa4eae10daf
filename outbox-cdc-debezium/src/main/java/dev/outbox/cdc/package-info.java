/**
 * CDC mode with Debezium: {@link dev.outbox.cdc.OutboxConnectorConfig} configures Debezium's
 * PostgreSQL connector and outbox event router for the outbox table, and {@link
 * dev.outbox.cdc.OutboxWireHeaders} gives each record the Kafka adapter's wire headers. See {@code
 * docs/cdc.md}.
 */
package dev.outbox.cdc;
