/**
 * One factory per broker, each the only class that links to its adapter: loaded only when that
 * broker is chosen, so the other adapters may be absent.
 */
package dev.outbox.spring.boot.publishers;
