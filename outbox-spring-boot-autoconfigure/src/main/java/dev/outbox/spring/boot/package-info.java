/**
 * Spring Boot auto-configuration of the outbox: {@link
 * dev.outbox.spring.boot.OutboxAutoConfiguration} binds {@code outbox.*} with the outbox's own
 * binder, hands the options to Hibernate, creates the broker's publisher and the {@link
 * dev.outbox.Outbox} as a lifecycle bean, and adds the Actuator health indicator, the Micrometer
 * meters and the {@code outbox} endpoint when the application has them.
 */
package dev.outbox.spring.boot;
