/**
 * The orders service as a Spring Boot application: {@link dev.outbox.samples.boot.Order} is an
 * {@code AggregateRoot} saved through a Spring Data repository by a {@code @Transactional} service
 * behind a REST endpoint; the outbox starter delivers its events to Kafka, and {@link
 * dev.outbox.samples.boot.DeliveredEvents} reads them back and logs each one.
 */
package dev.outbox.samples.boot;
