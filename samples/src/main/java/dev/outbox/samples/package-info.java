/**
 * The orders sample: an {@link dev.outbox.samples.Order} aggregate with {@link
 * dev.outbox.samples.OrderLine} children, its events, the {@link dev.outbox.samples.OrderService}
 * that changes orders in ordinary JPA transactions, and {@link dev.outbox.samples.OrdersDemo}, the
 * runnable demo that wires everything with Guice and checks what a consumer receives. Sample code,
 * not an API.
 */
package dev.outbox.samples;
