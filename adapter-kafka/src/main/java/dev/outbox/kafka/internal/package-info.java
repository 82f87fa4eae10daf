/**
 * The Kafka adapter's workings: producer settings, record mapping, topic metadata lookups,
 * pipelined batches and failure classification. Not API: anything here may change without notice.
 */
package dev.outbox.kafka.internal;
