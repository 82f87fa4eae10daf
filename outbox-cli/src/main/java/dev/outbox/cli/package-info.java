/**
 * The {@code outbox} command-line tool: {@code status} of the backlog and {@code dead-letters}
 * listed, shown, replayed and purged, on the outbox tables of a database reached with a JDBC URL.
 * {@link dev.outbox.cli.OutboxCli} is the entry point; the commands read and change the rows with
 * the statements of {@code outbox-hibernate} ({@link dev.outbox.jdbc.OutboxTables}).
 */
package dev.outbox.cli;
