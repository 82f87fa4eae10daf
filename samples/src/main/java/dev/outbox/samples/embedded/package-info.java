/**
 * The embedded default: a real PostgreSQL from Maven Central binaries and a single-node KRaft Kafka
 * broker inside the JVM, so that the demo runs on a machine with only a JDK and Maven. Sample code,
 * not an API.
 */
package dev.outbox.samples.embedded;
