/**
 * Internals of the Service Bus adapter: message mapping, batching per entity and failure
 * classification. Not API: may change in any release.
 */
package dev.outbox.servicebus.internal;
