/**
 * Implementation of the NATS adapter: connection setup, stream provisioning, message mapping and
 * acknowledgement handling. Not API: anything here may change without notice.
 */
package dev.outbox.nats.internal;
