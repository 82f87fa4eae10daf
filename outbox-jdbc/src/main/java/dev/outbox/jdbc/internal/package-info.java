/**
 * Implementation of the JDBC outbox. Not API: anything here may change without notice.
 *
 * <p>{@link dev.outbox.jdbc.internal.JdbcOutboxStore} is the store; {@link
 * dev.outbox.jdbc.internal.PendingRows} and {@link dev.outbox.jdbc.internal.FlushWriter} the
 * writer; {@link dev.outbox.jdbc.internal.Dialect} what differs per database; {@link
 * dev.outbox.jdbc.internal.TraceContext} the OpenTelemetry trace context, when the API is present.
 */
package dev.outbox.jdbc.internal;
