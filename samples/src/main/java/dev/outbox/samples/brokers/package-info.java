/**
 * One {@link dev.outbox.samples.brokers.Broker} per broker the demo can use: it checks the server,
 * declares what the demo needs (topic, exchange and queue, stream, queue) for this run only, gives
 * the adapter's Guice module, consumes with the broker's own client, and cleans up. Sample code,
 * not an API.
 */
package dev.outbox.samples.brokers;
