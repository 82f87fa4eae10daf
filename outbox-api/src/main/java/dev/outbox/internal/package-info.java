/**
 * The engine: processor loop, batch cycle, outcome rules, cleanup and dead letters, written only
 * against the ports of {@code dev.outbox.spi}. Not API: anything here may change without notice.
 */
package dev.outbox.internal;
